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

  it("gives a single item the whole budget and falls back to a one-element marker array", () => {
    const items = ["q".repeat(600)];
    expect(truncateToolOutput(items, 500).output).toEqual([
      `Array output truncated${suffix(604)}`,
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
