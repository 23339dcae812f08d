/**
 * Which terms of a ranked any-term search get a candidate arm of their own, shared by every
 * backend (docs/behavior/search.md#ranking-limits-and-results). The any-term window ranks the
 * newest matches of any term, so when a common term fills it, an older message holding a rare
 * term (a name, a number, the one topic word of the question) is never scored. The rarest terms,
 * as long as they hold few messages together (`rareCountCap`), are rare: all their matches are
 * candidates, whatever their age, and there are few of them, so the cost stays bounded.
 */
import type { MatchMode } from "../contracts/types.js";

/** The rare-term arm: which terms (by index), how many rows it may bring, and the any-term window. */
export interface RareTermArm {
  /** Indexes of the rare terms, or `null` for no rare-term arm. */
  rare: number[] | null;
  /** Rows the rare-term arm brings at most (0 without one). */
  rareLimit: number;
  /** The any-term window: every match when every term is rare, else the usual window. */
  anyWindow: number;
}

/** How many matches the rare terms of a query may have together, in rank windows. */
export const RARE_BUDGET_WINDOWS = 8;

/**
 * Matches the rare terms may have together, at most: a wide window (explained searches rank ten
 * times their limit) would otherwise count more postings than the search's term statistics read.
 */
export const RARE_BUDGET_MAX = 8_000;

/** The most matches of one term worth counting: past it, the term is common whatever its count. */
export function rareCountCap(window: number): number {
  return Math.min(window * RARE_BUDGET_WINDOWS, RARE_BUDGET_MAX);
}

/**
 * The arm of a search under `match` given each term's match count (`counts[i]`; a count above
 * `rareCountCap(window)` may be given as any larger number). The rarest terms are taken while
 * their matches together stay within `rareCountCap(window)`: all those matches are candidates.
 * When that takes every term, the any-term window grows to hold every match instead, and no
 * second arm is needed; without a rare term, or for a single term or `match: "all"`, nothing
 * changes.
 */
export function rareTermArm(
  match: MatchMode,
  counts: readonly number[],
  window: number,
): RareTermArm {
  const none = { rare: null, rareLimit: 0, anyWindow: window };
  if (match !== "any" || counts.length < 2) return none;
  const budget = rareCountCap(window);
  const order = counts
    .map((_, at) => at)
    .sort(
      (a, b) =>
        (counts[a] ?? Number.POSITIVE_INFINITY) -
          (counts[b] ?? Number.POSITIVE_INFINITY) || a - b,
    );
  const rare: number[] = [];
  let total = 0;
  for (const at of order) {
    const count = counts[at] ?? Number.POSITIVE_INFINITY;
    if (total + count > budget) break;
    total += count;
    rare.push(at);
  }
  if (rare.length === 0) return none;
  if (rare.length === counts.length)
    return { rare: null, rareLimit: 0, anyWindow: Math.max(window, total) };
  return {
    rare: rare.sort((a, b) => a - b),
    rareLimit: budget,
    anyWindow: window,
  };
}
