import { describe, expect, it } from "vitest";
import {
  DEFAULT_SEARCH_LIMIT,
  normalizeSearchLimit,
  RANK_WINDOW,
  rankTail,
  rankWindow,
  RECALL_RANK_WINDOW,
  recallRankWindow,
  STABLE_RANKING_DEPTH,
} from "./search-limit.js";

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

describe("rank windows", () => {
  it("score a fixed window whatever the limit, and read a tail only past it", () => {
    expect(RANK_WINDOW).toBe(200);
    expect(rankTail(RANK_WINDOW, 20)).toBe(0);
    expect(rankTail(RANK_WINDOW, 200)).toBe(0);
    expect(rankTail(RANK_WINDOW, 201)).toBe(401);
  });

  it("read fused rankings to a fixed depth up to 600 results, then follow the limit", () => {
    for (const limit of [1, 20, 100, 600]) {
      expect(rankWindow(limit)).toBe(STABLE_RANKING_DEPTH);
      expect(recallRankWindow(limit)).toBe(RECALL_RANK_WINDOW);
    }
    expect(rankWindow(1_000)).toBe(1_000);
    expect(recallRankWindow(1_000)).toBe(10_000);
  });
});
