import type { SearchHit } from "../session/index.js";

/** The `since`/`until` of `search_memory`, parsed: the search's own time filter. */
export interface TimeWindow {
  since?: Date;
  until?: Date;
}

/** How many hits one search may read while filling a page through a filter. */
const MAX_FETCH = 2_000;

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
