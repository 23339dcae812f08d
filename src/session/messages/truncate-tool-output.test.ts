import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { truncateToolOutput } from "./truncate-tool-output.js";

const suffix = (n: number) => `... [truncated ${n} chars]`;

describe("truncateToolOutput", () => {
  it("returns outputs within budget unchanged, by identity", () => {
    const output = { a: [1, 2, 3] };
    expect(truncateToolOutput(output, 500)).toEqual({
      output,
      truncated: false,
      originalLength: 13,
    });
    expect(truncateToolOutput(output, 500).output).toBe(output);
    expect(truncateToolOutput("abc", 3)).toEqual({
      output: "abc",
      truncated: false,
      originalLength: 3,
    });
  });

  it("keeps a prefix of a string plus the suffix, exactly maxChars long", () => {
    const result = truncateToolOutput("x".repeat(1000), 100);
    expect(result.output).toBe(
      "x".repeat(100 - suffix(1000).length) + suffix(1000),
    );
    expect((result.output as string).length).toBe(100);
    expect(result).toMatchObject({ truncated: true, originalLength: 1000 });
  });

  it("keeps only a prefix of the suffix when the budget is smaller than the suffix", () => {
    expect(truncateToolOutput("x".repeat(100), 10).output).toBe("... [trunc");
  });

  it("does not cut a surrogate pair in half", () => {
    const text = "a" + "😀".repeat(100);
    const output = truncateToolOutput(text, 50).output as string;
    expect(output.startsWith("a" + "😀".repeat(12) + "...")).toBe(true); // 50 - 25 = 25 units: "a" + 12 pairs
  });

  it("leaves numbers, booleans and null unchanged", () => {
    expect(truncateToolOutput(123456789, 3)).toEqual({
      output: 123456789,
      truncated: false,
      originalLength: 9,
    });
    expect(truncateToolOutput(true, 2).output).toBe(true);
    expect(truncateToolOutput(null, 2).output).toBeNull();
  });

  it("shortens array items with a shared budget and drops trailing items behind a marker", () => {
    const items = ["a", "b", "c"].map((letter) => letter.repeat(300));
    const originalLength = JSON.stringify(items).length;
    const result = truncateToolOutput(items, 500);
    // Child budget max(80, floor(500 / 3)) = 166; three 166-char strings are 508 chars of JSON.
    const short = (letter: string) =>
      letter.repeat(166 - suffix(300).length) + suffix(300);
    expect(result.output).toEqual([
      short("a"),
      short("b"),
      `Array output truncated${suffix(originalLength)}`,
    ]);
    expect(JSON.stringify(result.output).length).toBeLessThanOrEqual(500);
  });

  it("gives array items at least 80 characters and splits at most ten ways", () => {
    const items = Array.from({ length: 20 }, () => "z".repeat(200));
    const output = truncateToolOutput(items, 2000).output as string[];
    expect(output[0]).toHaveLength(200); // floor(2000 / 10)
    const tight = truncateToolOutput(items, 500).output as string[];
    expect(tight[0]).toHaveLength(80);
  });

  it("gives a single item the whole budget but the brackets, with no marker (nothing is dropped)", () => {
    const items = ["q".repeat(600)];
    // 500 - 2 brackets - 2 quotes = 496 characters.
    expect(truncateToolOutput(items, 500).output).toEqual([
      "q".repeat(496 - suffix(600).length) + suffix(600),
    ]);
  });

  it("falls back to a one-element marker array when even a shrunken first item does not fit", () => {
    const items = [{ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 }, "x".repeat(100)];
    const originalLength = JSON.stringify(items).length;
    expect(truncateToolOutput(items, 60).output).toEqual([
      `Array output truncated${suffix(originalLength)}`,
    ]);
  });

  it("shortens object values, then the longest string fields to a quarter of the budget", () => {
    const output = { a: "x".repeat(1000), b: "y".repeat(1000) };
    const result = truncateToolOutput(output, 500);
    // Child budget floor(500 / 2) = 250 → 515 chars of JSON; then the longest field goes to 125.
    expect(result.output).toEqual({
      a: "x".repeat(125 - suffix(1000).length) + suffix(1000),
      b: "y".repeat(250 - suffix(1000).length) + suffix(1000),
    });
    expect(JSON.stringify(result.output).length).toBeLessThanOrEqual(500);
  });

  it("replaces an object that cannot shrink enough with a marker object, with a note when it fits", () => {
    const output = Object.fromEntries(
      Array.from({ length: 100 }, (_, i) => [`k${i}`, "0123456789"]),
    );
    const originalLength = JSON.stringify(output).length;
    expect(truncateToolOutput(output, 500).output).toEqual({
      __truncated: true,
      __truncatedChars: originalLength,
      note: "Tool output omitted because it was too large to preserve structurally.",
    });
    expect(truncateToolOutput(output, 60).output).toEqual({
      __truncated: true,
      __truncatedChars: originalLength,
    });
  });

  it("omits values nested deeper than 8 levels", () => {
    type Nest = { a: Nest } | string;
    let nest: Nest = "x".repeat(2000);
    for (let level = 0; level < 12; level++) nest = { a: nest };
    const result = truncateToolOutput(nest, 500);
    let value = result.output as Record<string, unknown>;
    for (let level = 0; level < 9; level++)
      value = value.a as Record<string, unknown>;
    let original = nest as Record<string, unknown>;
    for (let level = 0; level < 9; level++)
      original = original.a as Record<string, unknown>;
    expect(value).toBe(
      `[Nested output omitted${suffix(JSON.stringify(original).length)}]`,
    );
  });

  it("keeps shallow nesting structural, reporting the original length of shortened strings", () => {
    const output = { a: { b: { c: "x".repeat(1000) } } };
    // A lone field gets the whole budget, which its key pushes over; then it goes to a quarter.
    expect(truncateToolOutput(output, 500).output).toEqual({
      a: { b: { c: "x".repeat(125 - suffix(1000).length) + suffix(1000) } },
    });
  });
});

describe("truncateToolOutput keeps the structure of objects (regressions)", () => {
  const marker = /^Array output truncated\.\.\. \[truncated \d+ chars\]$/;
  const jsonLength = (value: unknown) => JSON.stringify(value).length;

  it("keeps all seven keys of { a..g: [1000 numbers] } at 500 characters, each array ending in a marker", () => {
    const output = Object.fromEntries(
      Array.from("abcdefg").map((key) => [
        key,
        Array.from({ length: 1000 }, (_, index) => index),
      ]),
    );
    const result = truncateToolOutput(output, 500);
    const shortened = result.output as Record<string, unknown[]>;
    expect(Object.keys(shortened)).toEqual(Array.from("abcdefg"));
    for (const key of "abcdefg") {
      const items = shortened[key]!;
      expect(items.at(-1)).toMatch(marker);
      // The numbers kept are the first ones, unchanged.
      expect(items.slice(0, -1)).toEqual(
        Array.from({ length: items.length - 1 }, (_, index) => index),
      );
    }
    expect(jsonLength(shortened)).toBeLessThanOrEqual(500);
    expect(JSON.parse(JSON.stringify(shortened))).toEqual(shortened);
  });

  it("keeps the key of { results: [...] }, the most common tool result, with leading results", () => {
    const output = {
      results: Array.from({ length: 50 }, (_, index) => ({
        title: `Result ${index}`,
        url: `https://example.com/${index}`,
        snippet: "lorem ipsum ".repeat(20),
      })),
    };
    const shortened = truncateToolOutput(output, 500).output as {
      results: Array<Record<string, unknown> | string>;
    };
    expect(Object.keys(shortened)).toEqual(["results"]);
    expect(shortened.results.at(-1)).toMatch(marker);
    expect(shortened.results.length).toBeGreaterThan(1);
    expect(shortened.results[0]).toMatchObject({ title: "Result 0" });
    expect(jsonLength(shortened)).toBeLessThanOrEqual(500);
  });

  it("shrinks nested objects a second time instead of dropping the outer keys", () => {
    const output = {
      status: "ok",
      data: {
        items: Array.from({ length: 200 }, (_, index) => ({
          id: index,
          name: `item ${index}`,
        })),
        meta: { total: 200, next: "x".repeat(300) },
      },
    };
    const shortened = truncateToolOutput(output, 200).output as {
      status: string;
      data: { items: unknown[]; meta: Record<string, unknown> };
    };
    expect(shortened.status).toBe("ok");
    expect(Object.keys(shortened.data)).toEqual(["items", "meta"]);
    // Too little room for the long marker: the short one, `... [truncated <n> chars]`.
    expect(shortened.data.items.at(-1)).toMatch(
      /\.\.\. \[truncated \d+ chars\]$/,
    );
    expect(shortened.data.meta.total).toBe(200);
    expect(jsonLength(shortened)).toBeLessThanOrEqual(200);
  });

  it("counts quotes and escapes of nested strings against the budget", () => {
    const output = {
      a: '"\\'.repeat(400),
      b: "\n".repeat(400),
      c: "é".repeat(400),
    };
    const shortened = truncateToolOutput(output, 200).output as Record<
      string,
      string
    >;
    expect(Object.keys(shortened)).toEqual(["a", "b", "c"]);
    expect(jsonLength(shortened)).toBeLessThanOrEqual(200);
    expect(shortened.c).toMatch(/^é+\.\.\. \[truncated 400 chars\]$/);
  });

  it("never exceeds the budget, and keeps every top-level key when the keys alone fit (property)", () => {
    // The smallest form of a value: an empty string, array or object; other values cannot shrink.
    const smallest = (value: unknown): unknown =>
      typeof value === "string"
        ? ""
        : Array.isArray(value)
          ? []
          : value !== null && typeof value === "object"
            ? {}
            : value;
    // A tool output is JSON: -0 (which fast-check's jsonValue can produce) reads back as 0.
    const json = fc
      .jsonValue()
      .map((value) => JSON.parse(JSON.stringify(value)) as unknown);
    fc.assert(
      fc.property(
        fc.oneof(
          json,
          fc.dictionary(
            fc.string({ maxLength: 8 }),
            fc.oneof(
              json,
              fc.string({ maxLength: 300 }),
              fc.array(fc.integer(), { maxLength: 100 }),
            ),
          ),
        ),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (output, share) => {
          // Mostly budgets below the output's length, so that something is cut.
          const maxChars = Math.max(
            2,
            Math.floor(share * JSON.stringify(output).length),
          );
          const result = truncateToolOutput(output, maxChars).output;
          if (typeof output === "string") {
            expect((result as string).length).toBeLessThanOrEqual(maxChars);
            return;
          }
          if (output === null || typeof output !== "object") {
            expect(result).toBe(output);
            return;
          }
          const text = JSON.stringify(result);
          expect(text.length).toBeLessThanOrEqual(maxChars);
          expect(JSON.parse(text)).toEqual(result);
          if (Array.isArray(output)) return;
          const keys = Object.keys(output);
          const skeleton = Object.fromEntries(
            keys.map((key) => [
              key,
              smallest((output as Record<string, unknown>)[key]),
            ]),
          );
          if (JSON.stringify(skeleton).length <= maxChars)
            expect(Object.keys(result as object)).toEqual(keys);
        },
      ),
      { numRuns: 500 },
    );
  });
});
