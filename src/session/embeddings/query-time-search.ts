/**
 * Time named in a query, as a ranking boost (docs/search.md#time-in-a-query and
 * docs/decisions/2026-12-01-time-in-search-queries.md), shared by `session.search()` and
 * `manager.search()`: the query's time words are read out (`readQueryTime`), the rest of the
 * query is searched once inside each time named and once without it, and the hits inside come
 * first. A hit outside the named time is kept below them, not dropped: the turn that answers
 * "what did we decide last week?" may have been written on another day. Only the explicit
 * `since`/`until` options filter.
 */
import { normalizeSearchLimit } from "../core/search-limit.js";
import {
  normalizeTextSearchOptions,
  withinTimeRange,
} from "../core/search-options.js";
import { queryTerms } from "../core/search-terms.js";
import { readQueryTime, type QueryTimeRange } from "../core/search-time.js";
import type { SearchHit } from "./types.js";

/** The options the boost reads; the rest pass through to the search unchanged. */
export interface QueryTimeSearchOptions {
  limit?: number;
  since?: string | Date;
  until?: string | Date;
  now?: string | Date;
  timeZone?: string;
}

/** One search run: the query and options, with `since`/`until` as ISO-8601 UTC strings. */
export type SearchRun<Hit> = (
  query: string,
  options: { limit: number; since?: string; until?: string },
) => Promise<Hit[]>;

/**
 * Runs a search with the query's time as a boost. Without time words in the query this is one
 * run of `search` with the options as given. `now` and `timeZone` are checked either way.
 */
export async function searchWithQueryTime<Hit extends SearchHit>(
  query: string,
  options: QueryTimeSearchOptions,
  search: SearchRun<Hit>,
): Promise<Hit[]> {
  const limit = normalizeSearchLimit(options.limit);
  const explicit = normalizeTextSearchOptions({
    ...(options.since !== undefined ? { since: options.since } : {}),
    ...(options.until !== undefined ? { until: options.until } : {}),
  });
  const read = readQueryTime(typeof query === "string" ? query : "", {
    ...(options.now !== undefined ? { now: options.now } : {}),
    ...(options.timeZone !== undefined ? { timeZone: options.timeZone } : {}),
  });
  if (read.ranges.length === 0)
    return (await search(query, { ...explicit, limit })).filter((hit) =>
      passes(hit, explicit),
    );
  // A query of time words alone ("yesterday?") keeps them as its terms.
  const text = queryTerms(read.text).length > 0 ? read.text : query;
  const seen = new Set<string>();
  const out: Hit[] = [];
  const add = (hit: Hit, inQueryTime: boolean) => {
    const key = `${hit.sessionId ?? ""}\u0000${hit.kind ?? "message"}\u0000${hit.id}`;
    if (seen.has(key) || out.length >= limit || !passes(hit, explicit)) return;
    seen.add(key);
    out.push({ ...hit, inQueryTime });
  };
  for (const range of read.ranges) {
    const window = intersect(range, explicit);
    if (window === null) continue;
    const hits = await search(text, { limit, ...window });
    // A ranking that does not filter by time (meaning alone) must not slip a hit in here.
    for (const hit of hits)
      if (hit.createdAt !== undefined && withinTimeRange(hit.createdAt, window))
        add(hit, true);
  }
  if (out.length < limit)
    for (const hit of await search(text, { ...explicit, limit }))
      add(
        hit,
        hit.createdAt !== undefined &&
          read.ranges.some((range) => withinTimeRange(hit.createdAt!, range)),
      );
  return out;
}

// --- Internal helpers ---

/**
 * False for a hit whose time lies outside the explicit `since`/`until`: the text ranking filters
 * in the backend, the ranking by meaning does not. A hit without a time is kept.
 */
function passes(
  hit: SearchHit,
  explicit: { since?: string; until?: string },
): boolean {
  return (
    hit.createdAt === undefined || withinTimeRange(hit.createdAt, explicit)
  );
}

/** A named time cut to the explicit `since`/`until`; `null` when nothing of it is left. */
function intersect(
  range: QueryTimeRange,
  explicit: { since?: string; until?: string },
): { since: string; until: string } | null {
  const since =
    explicit.since !== undefined && explicit.since > range.since
      ? explicit.since
      : range.since;
  const until =
    explicit.until !== undefined && explicit.until < range.until
      ? explicit.until
      : range.until;
  return since < until ? { since, until } : null;
}
