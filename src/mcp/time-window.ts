import type { SearchHit } from "../session/index.js";

/** The `since`/`until` of `search_memory`, parsed. */
export interface TimeWindow {
  since?: Date;
  until?: Date;
}

/** How many hits one search may read while filling a page through a time window. */
const MAX_FETCH = 2_000;

/**
 * Runs `search` and keeps the hits created inside `window`, reading as many as `wanted` needs.
 *
 * The manager's search has no time filter yet, so this over-fetches and filters on each hit's
 * `createdAt`. When the search options take `since`/`until` themselves, this function moves into
 * them: pass the window to `search` and return its hits unchanged. It is the only place
 * `search_memory` knows about time.
 */
export async function searchInTimeWindow(
  search: (limit: number) => Promise<SearchHit[]>,
  window: TimeWindow,
  wanted: number,
): Promise<SearchHit[]> {
  if (!window.since && !window.until) return search(wanted);
  return searchFiltered(
    search,
    (hit) => {
      const time = hit.createdAt ? Date.parse(hit.createdAt) : Number.NaN;
      if (Number.isNaN(time)) return false;
      if (window.since && time < window.since.getTime()) return false;
      if (window.until && time > window.until.getTime()) return false;
      return true;
    },
    wanted,
  );
}

/**
 * The first `wanted` hits that `keep` accepts: reads four times as many, doubling up to 2,000,
 * until enough are kept or the search has no more.
 */
export async function searchFiltered(
  search: (limit: number) => Promise<SearchHit[]>,
  keep: (hit: SearchHit) => boolean,
  wanted: number,
): Promise<SearchHit[]> {
  for (
    let limit = Math.min(wanted * 4, MAX_FETCH);
    ;
    limit = Math.min(limit * 2, MAX_FETCH)
  ) {
    const hits = await search(limit);
    const kept = hits.filter(keep);
    if (kept.length >= wanted || hits.length < limit || limit >= MAX_FETCH)
      return kept;
  }
}
