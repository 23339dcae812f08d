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

/**
 * How many of the newest matches a text search scores by relevance, whatever its `limit`
 * (docs/behavior/search.md#ranking-limits-and-results). Ranking every match of a common word costs
 * time in proportion to how often it occurs; a window keeps a search's cost bounded however large
 * the history grows, and leans towards recent messages, which is what an agent's recall wants. A
 * query matching no more messages than the window is ranked in full.
 *
 * The window does not grow with `limit`, so a ranking is one order whatever page of it is asked
 * for: the first k results of a `limit: k` search are the first k of any larger one. Matches past
 * the scored candidates follow them unscored, newest first (`rankTail`).
 */
export const RANK_WINDOW = 200;

/** The fewest newest matches a search ranks (the fixed `RANK_WINDOW`); kept for callers. */
export const MIN_RANK_WINDOW = RANK_WINDOW;

/**
 * How deep a ranking stays the same whatever the `limit`: a search that fuses rankings (hybrid,
 * times named in the query) reads this many candidates of each, so its order does not depend on
 * `limit` up to here. 600 covers the MCP tool's pages (up to 100 results each) through the first
 * 500 results, with the one extra result a page reads to know whether another follows.
 */
export const STABLE_RANKING_DEPTH = 600;

/**
 * How many candidates of each ranking a fused search reads for `limit`: `STABLE_RANKING_DEPTH`,
 * or the limit when it is larger (past that depth a ranking may change with `limit`).
 */
export function rankWindow(limit: number): number {
  return Math.max(
    STABLE_RANKING_DEPTH,
    Math.min(limit, Number.MAX_SAFE_INTEGER),
  );
}

/**
 * The scoring window of the text ranking a fused search (a `mode`) reads, for `limit`: 2,000 (ten
 * times the 200 candidates such a search used to read at the default limit, which its recall
 * figures were measured with) up to `STABLE_RANKING_DEPTH`; past that, ten times the limit, so a
 * very large limit still ranks every match of a long history.
 */
export function recallRankWindow(limit: number): number {
  return limit <= STABLE_RANKING_DEPTH
    ? RECALL_RANK_WINDOW
    : Math.min(limit * 10, Number.MAX_SAFE_INTEGER);
}

/** The scoring window of a fused search's text ranking up to `STABLE_RANKING_DEPTH` results. */
export const RECALL_RANK_WINDOW = 2_000;

/**
 * How many newest matches a text search reads past its scored window, unscored, so that `limit`
 * results exist when more matches than the window hold: none while `limit` fits in the window,
 * else `window + limit`. Any match older than that many newest ones has at least `limit` matches
 * ranked above it, so the first `limit` results are the same as without the cut.
 */
export function rankTail(window: number, limit: number): number {
  return limit > window ? window + limit : 0;
}
