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
