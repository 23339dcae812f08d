/** Small assertion helpers that keep the suite independent of any runner's `rejects`/`toThrow`. */

/** Awaits `fn` and returns what it threw, or `undefined` when it did not throw. */
export async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return (
      error ?? new Error("[arbor-memory/testing] a nullish value was thrown")
    );
  }
  return undefined;
}

/** Runs `fn` synchronously and returns what it threw, or `undefined`. */
export function caughtSync(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return (
      error ?? new Error("[arbor-memory/testing] a nullish value was thrown")
    );
  }
  return undefined;
}

/** The observable identity of a thrown value, compared with one `toEqual` for readable failures. */
export interface ErrorSummary {
  /** `"TypeError"`, `"Error"` (any other Error), `"none"` (nothing thrown) or `"other"`. */
  kind: "TypeError" | "Error" | "none" | "other";
  code: unknown;
  /** Carries the `Symbol.for("arbor.error")` marker. */
  marked: boolean;
}

export function summarizeError(error: unknown): ErrorSummary {
  if (error === undefined)
    return { kind: "none", code: undefined, marked: false };
  const kind =
    error instanceof TypeError
      ? "TypeError"
      : error instanceof Error
        ? "Error"
        : "other";
  const record = (
    typeof error === "object" && error !== null ? error : {}
  ) as Record<PropertyKey, unknown>;
  return {
    kind,
    code: record.code,
    marked: record[Symbol.for("arbor.error")] === true,
  };
}

/** `error.message`, or `undefined`. */
export function messageOf(error: unknown): unknown {
  return error instanceof Error ? error.message : undefined;
}

/** UTF-8 size of a string (the size the row stats and windows count). */
export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** ISO-8601 UTC with milliseconds, as every time Arbor returns (docs/behavior/messages-and-tree.md, docs/behavior/storage.md). */
export function isIsoTimestamp(value: unknown): boolean {
  return (
    typeof value === "string" &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(value) &&
    new Date(value).toISOString() === value
  );
}

/**
 * A tiny deterministic PRNG (mulberry32), so fuzz cases are reproducible and the shipped suite
 * needs no property-testing dependency.
 */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random element of `items`. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}
