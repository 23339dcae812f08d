/** How many hits a search returns when the caller gives no usable `limit`. */
export const DEFAULT_SEARCH_LIMIT = 20;

/**
 * The `limit` a search runs with: the given one when it is a positive integer, otherwise
 * `DEFAULT_SEARCH_LIMIT`. Zero, negatives, fractions, `NaN`, `Infinity` and non-numbers all fall
 * back to the default rather than failing, so a loose caller still gets a bounded answer.
 */
export function normalizeSearchLimit(limit: unknown): number {
  return typeof limit === "number" && Number.isInteger(limit) && limit > 0
    ? limit
    : DEFAULT_SEARCH_LIMIT;
}

/** The fewest newest matches a search ranks, whatever its `limit` (docs/behavior/search.md#ranking-limits-and-results). */
export const MIN_RANK_WINDOW = 200;

/**
 * How many of the newest matches a search ranks by relevance: ten times the limit, at least
 * `MIN_RANK_WINDOW`. Ranking every match of a common word costs time in proportion to how often it
 * occurs; a window keeps a search's cost bounded however large the history grows, and leans
 * towards recent messages, which is what an agent's recall wants. A query matching no more
 * messages than the window is ranked in full.
 */
export function rankWindow(limit: number): number {
  return Math.max(
    MIN_RANK_WINDOW,
    Math.min(limit * 10, Number.MAX_SAFE_INTEGER),
  );
}
