import { describe, expect, it } from "vitest";
import { DEFAULT_SEARCH_LIMIT, normalizeSearchLimit } from "./search-limit.js";

describe("normalizeSearchLimit", () => {
  it("keeps a positive integer", () => {
    expect(normalizeSearchLimit(1)).toBe(1);
    expect(normalizeSearchLimit(500)).toBe(500);
  });

  it("falls back to the default for anything else", () => {
    expect(DEFAULT_SEARCH_LIMIT).toBe(20);
    for (const limit of [undefined, null, 0, -3, 2.5, NaN, Infinity, "5"]) {
      expect(normalizeSearchLimit(limit)).toBe(DEFAULT_SEARCH_LIMIT);
    }
  });
});
