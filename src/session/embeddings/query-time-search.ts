/**
 * Time named in a query, as a ranking boost (docs/search.md#time-in-a-query and
 * docs/decisions/2026-12-01-time-in-search-queries.md), shared by `session.search()` and
 * `manager.search()`: the query's time words are read out (`readQueryTime`), the rest of the
 * query is searched once inside each time named and once without it, and the lists are fused by
 * reciprocal rank, the ones inside weighing more: a hit inside the named time that the plain
 * search ranks well too comes first. A hit outside is never dropped and a strong one outranks a
 * weak one inside: the turn that answers "what did we decide last week?" may have been written
 * on another day. Only the explicit `since`/`until` options filter.
 */
import { normalizeSearchLimit, rankWindow } from "../text/search-limit.js";
import {
  normalizeTextSearchOptions,
  withinTimeRange,
} from "../text/search-options.js";
import { queryTerms } from "../text/search-terms.js";
import { readQueryTime, type QueryTimeRange } from "../text/search-time.js";
import type { MatchMode } from "../contracts/types.js";
import type { SearchHit } from "./types.js";

/** The options the boost reads; the rest pass through to the search unchanged. */
export interface QueryTimeSearchOptions {
  limit?: number;
  /** `"all"` needs every term: the named words then stay out, or they would drop matches. */
  match?: MatchMode;
  since?: string | Date;
  until?: string | Date;
  now?: string | Date;
  timeZone?: string;
}

/**
 * One search run: the query and options, with `since`/`until` as ISO-8601 UTC strings. `alone`
 * when the run's ranking is the search's whole ranking (the query names no time).
 */
export type SearchRun<Hit> = (
  query: string,
  options: { limit: number; since?: string; until?: string; alone?: true },
) => Promise<Hit[]>;

/**
 * Runs a search with the query's time as a boost. Without time words in the query this is one
 * run of `search` (`alone`) with the options as given. `now` and `timeZone` are checked either
 * way. `reorder`, when given, reorders the fused ranking before it is cut to `limit`; the run
 * made `alone` is the one to reorder its own ranking.
 */
export async function searchWithQueryTime<Hit extends SearchHit>(
  query: string,
  options: QueryTimeSearchOptions,
  search: SearchRun<Hit>,
  reorder?: (fused: Hit[]) => Promise<Hit[]>,
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
    return (await search(query, { ...explicit, limit, alone: true })).filter(
      (hit) => passes(hit, explicit),
    );
  // A query of time words alone ("yesterday?") keeps them as its terms.
  const text = queryTerms(read.text).length > 0 ? read.text : query;
  // The search without the time keeps the words that name a day, month or year: "when do we
  // deploy on friday?" must still find "Yes, Friday." (the time only ranks, it never removes a
  // text match). Inside the named time those words say nothing more, so they leave the terms;
  // with `match: "all"` they stay out of both, as every term there must match.
  const plain =
    text === query || read.names.length === 0 || options.match === "all"
      ? text
      : `${text} ${read.names.join(" ")}`;
  // Each fused ranking is read to a depth that does not depend on `limit`, so the fused order
  // is the same for every limit up to it (text/search-limit.ts).
  const depth = rankWindow(limit);
  const lists: Array<{ hits: Hit[]; weight: number }> = [];
  for (const range of read.ranges) {
    const window = intersect(range, explicit);
    if (window === null) continue;
    const hits = await search(text, { limit: depth, ...window });
    // A ranking that does not filter by time (meaning alone) must not slip a hit in here.
    lists.push({
      hits: hits.filter(
        (hit) =>
          hit.createdAt !== undefined && withinTimeRange(hit.createdAt, window),
      ),
      weight: IN_QUERY_TIME_WEIGHT,
    });
  }
  lists.push({
    hits: (await search(plain, { ...explicit, limit: depth })).filter((hit) =>
      passes(hit, explicit),
    ),
    weight: 1,
  });
  // Reciprocal-rank fusion of the searches inside each named time and the one without; ties
  // keep the order hits were first seen in (the sort is stable, the map keeps insertion order).
  const fused = new Map<string, { hit: Hit; score: number }>();
  for (const { hits, weight } of lists)
    hits.forEach((hit, rank) => {
      const key = `${hit.sessionId ?? ""}\u0000${hit.kind ?? "message"}\u0000${hit.id}`;
      const entry = fused.get(key) ?? { hit, score: 0 };
      entry.score += weight / (FUSION_K + rank);
      fused.set(key, entry);
    });
  const ranked = [...fused.values()]
    .sort((a, b) => b.score - a.score)
    .map(({ hit }) => hit);
  return (reorder ? await reorder(ranked) : ranked)
    .slice(0, limit)
    .map((hit) => ({
      ...hit,
      inQueryTime:
        hit.createdAt !== undefined &&
        read.ranges.some((range) => withinTimeRange(hit.createdAt!, range)),
    }));
}

/**
 * The fusion's rank offset: a hit's share of a list is `weight / (FUSION_K + rank)`. Small, so
 * the first places of each list count clearly more than the later ones.
 */
const FUSION_K = 10;

/**
 * How much a search inside a named time weighs against the one without it (1). Above 1, so the
 * best hit inside the time leads the best hit outside; low enough that a strong match outside
 * (the answer written on another day than the question names) still ranks above a weak one
 * inside. On the LongMemEval history (docs/search.md#recall-quality), putting every hit inside
 * first gave recall@10 55.9% (questions as asked), no boost 55.8%, this fusion 57.5%.
 */
const IN_QUERY_TIME_WEIGHT = 1.25;

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
