// What the hostile-input cases need of a backend, and the checks they share: an answer is a value
// or an ArborError with a known code, and afterwards the storage is intact (engine checks, a known
// message reads back, search finds it).
import {
  ARBOR_ERROR_CODES,
  type SessionManager,
  type SessionMessage,
} from "../../../src/session/index.js";

/** One backend under hostile input. */
export interface HostileBackend {
  name: string;
  /** A manager over the storage (every call may return a new one over the same storage). */
  manager(): SessionManager;
  /** Writes message rows directly, bypassing Arbor (SQL backends only). */
  insertRaw?(
    sessionId: string,
    rows: ReadonlyArray<{ id: string; parentId: string | null; text: string }>,
  ): Promise<void>;
  /** The engine's own checks: `PRAGMA integrity_check` and FTS5's, or a query on PostgreSQL. */
  integrity(): Promise<void>;
  /** How many sequences the fast-check cases run. */
  runs: number;
}

/** A value, or the ArborError it was refused with. */
export type Outcome<T> =
  { ok: true; value: T } | { ok: false; code: string; message: string };

const CODES = new Set<string>(ARBOR_ERROR_CODES);

/** Runs `work`; any error that is not an ArborError with a known code fails the case. */
export async function typed<T>(
  what: string,
  work: () => Promise<T> | T,
): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === "string" && CODES.has(code))
      return { ok: false, code, message: (error as Error).message };
    throw new Error(
      `${what}: expected a value or a typed ArborError, got ${describe(error)}`,
      { cause: error },
    );
  }
}

/** A session with one known message, written before the hostile input arrives. */
export interface Anchor {
  sessionId: string;
  messageId: string;
  text: string;
  word: string;
}

export async function writeAnchor(manager: SessionManager): Promise<Anchor> {
  const word = `lighthouse${Math.random().toString(36).slice(2, 8)}`;
  const { id } = await manager.create("anchor", { ownerId: "anchor" });
  const text = `the ${word} keeper logs the storm`;
  await manager
    .getSession(id)
    .appendMessage({ id: "anchor-1", role: "user", parts: [textPart(text)] });
  return { sessionId: id, messageId: "anchor-1", text, word };
}

/** The storage is intact: engine checks pass, the anchor reads back, search finds it. */
export async function expectIntact(
  backend: HostileBackend,
  anchor: Anchor,
  after: string,
): Promise<void> {
  await backend.integrity();
  const manager = backend.manager();
  const session = manager.getSession(anchor.sessionId);
  const message = await session.getMessage(anchor.messageId);
  same(
    message?.parts.map((part) => part.text).join(""),
    anchor.text,
    `anchor text after ${after}`,
  );
  same(
    (await session.search(anchor.word)).map((hit) => hit.id),
    [anchor.messageId],
    `anchor search after ${after}`,
  );
  same(
    (await session.getHistory()).map((entry) => entry.id),
    [anchor.messageId],
    `anchor history after ${after}`,
  );
}

export function textPart(text: string) {
  return { type: "text" as const, text };
}

export function textMessage(
  id: string,
  text: string,
  role: SessionMessage["role"] = "user",
): SessionMessage {
  return { id, role, parts: [textPart(text)] };
}

export function textOf(message: SessionMessage | null): string | undefined {
  return message?.parts.map((part) => String(part.text ?? "")).join("");
}

export function same(actual: unknown, expected: unknown, what: string): void {
  const [a, b] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== b)
    throw new Error(
      `${what}: got ${a?.slice(0, 300)}, expected ${b?.slice(0, 300)}`,
    );
}

export function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`expected: ${what}`);
}

/** `{ a: { a: … "leaf" } }`, `depth` levels, built without recursion. */
export function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** How deep `value` nests objects, measured without recursion. */
export function depthOf(value: unknown): number {
  let depth = 0;
  for (
    let at = value;
    typeof at === "object" && at !== null;
    at = (at as { a?: unknown }).a
  )
    depth++;
  return depth;
}

function describe(error: unknown): string {
  if (error instanceof Error)
    return `${error.name} (code ${String((error as { code?: unknown }).code)}): ${error.message.slice(0, 300)}`;
  return String(error).slice(0, 300);
}
