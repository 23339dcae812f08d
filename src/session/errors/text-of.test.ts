import { describe, expect, it } from "vitest";
import { textOf } from "./text-of.js";

describe("textOf", () => {
  it("shows scalars as String() does and objects as JSON, not [object Object]", () => {
    expect(textOf("memory.db")).toBe("memory.db");
    expect(textOf(12)).toBe("12");
    expect(textOf(Number.NaN)).toBe("NaN");
    expect(textOf(false)).toBe("false");
    expect(textOf(10n)).toBe("10");
    expect(textOf(Symbol("s"))).toBe("Symbol(s)");
    expect(textOf({ id: "m1" })).toBe('{"id":"m1"}');
    expect(textOf(["a", 1])).toBe('["a",1]');
  });

  it("gives the fallback for null, undefined and what JSON cannot write", () => {
    expect(textOf(null)).toBe("");
    expect(textOf(undefined, "text")).toBe("text");
    expect(textOf(() => 1, "a function")).toBe("a function");
  });

  it("does not throw on a value JSON fails on", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(textOf(cyclic)).toBe("[object Object]");
    expect(textOf({ big: 1n })).toBe("[object Object]");
  });
});
