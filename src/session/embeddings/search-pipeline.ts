/**
 * The search pipeline of `session.search()` and `manager.search()` (docs/search.md), written
 * once: what differs between one session and the sessions of a registry is declared by a
 * `SearchSpace`; the order of the steps is this module's:
 *
 * 1. `context` checked, then the options split: `now`, `timeZone`, `since` and `until` go to
 *    the time named in the query (query-time-search.ts), the rest to the ranking;
 * 2. each run of the ranking: the space's plain full-text search when there are no embeddings
 *    and no `mode`, `scope` or `leafId` (results as the backend returns them); otherwise the
 *    recall ranking (recall.ts, loaded on first use): the text ranking (message hits interleaved
 *    with overlay summaries), the nearest vectors, fused, each candidate resolved to its text;
 * 3. across sessions, the ranked candidates reordered below their first places by their
 *    sessions' evidence (session-evidence.ts): the only ranking's before they are resolved, or
 *    the rankings' fused in and out of a time the query names, so the step sees the order it
 *    changes;
 * 4. hits placed in their sessions: the session's name across sessions, and the turns around
 *    each hit with `context`.
 *
 * A change to the ranking (fusion, the rank window, a new text option) is made here or in
 * recall.ts, once for both facades.
 */
import {
  normalizeSearchLimit,
  rankWindow,
  recallRankWindow,
} from "../text/search-limit.js";
import { normalizeTextSearchOptions } from "../text/search-options.js";
import { queryTerms } from "../text/search-terms.js";
import { checkHitContext } from "./hit-neighbours.js";
import { searchWithQueryTime } from "./query-time-search.js";
import { placeHits, resolveInSessions } from "./search-resolve.js";
import type { SearchSpace } from "./search-space.js";
import type { ReadOpenings } from "./session-evidence.js";
import {
  isPlainSearch,
  type SearchHit,
  type SessionSearchOptions,
} from "./types.js";

/** Runs a search over `space`; see the module comment. */
export async function runSearch(
  space: SearchSpace,
  query: string,
  options: SessionSearchOptions,
): Promise<SearchHit[]> {
  const context = checkHitContext(options.context);
  const {
    now: _now,
    timeZone: _timeZone,
    context: _context,
    since: _since,
    until: _until,
    ...ranking
  } = options;
  // Across sessions, a ranked search reorders its candidates by their sessions' evidence: the
  // query's only ranking before its candidates are read, or the fusion of the rankings in and
  // out of a named time. A session's search never loads the step, nor a space that cannot read
  // which messages open their sessions.
  const openings =
    space.acrossSessions &&
    (space.embeddings !== null || !isPlainSearch(options))
      ? space.openings
      : undefined;
  const hits = await searchWithQueryTime(
    query,
    options,
    (text, { alone, ...window }) =>
      rank(
        space,
        text,
        { ...ranking, ...window },
        alone === true ? openings : undefined,
      ),
    openings
      ? async (fused) =>
          (await import("./session-evidence.js")).rankWithSessionEvidence(
            fused,
            (hit) => hit,
            openings,
            query,
          )
      : undefined,
  );
  return placeHits(space, hits, context);
}

// --- Internal helpers ---

/** One run of the ranking (step 2 of the module comment). */
async function rank(
  space: SearchSpace,
  query: string,
  options: SessionSearchOptions & { limit: number },
  sessionEvidence: ReadOpenings | undefined,
): Promise<SearchHit[]> {
  const handle = space.embeddings;
  if (!handle && isPlainSearch(options))
    return space.searchText(query, options);
  // Loaded on first use: a Worker that only runs plain searches never loads the ranking.
  const { checkRecallOptions, interleave, recall } =
    await import("./recall.js");
  const { mode, scope } = checkRecallOptions(
    space.acrossSessions ? { mode: options.mode } : options,
    handle !== null,
  );
  const textOptions = normalizeTextSearchOptions(options);
  if (queryTerms(query).length === 0) return [];
  const limit = normalizeSearchLimit(options.limit);
  const index = handle
    ? await handle.index(await space.embeddingStore())
    : null;
  const covered = await space.rankingScope(
    scope,
    space.acrossSessions ? undefined : options.leafId,
  );
  const window = { ...textOptions, limit: rankWindow(limit) };
  return recall({
    query,
    mode,
    limit,
    index,
    withSessionId: space.acrossSessions,
    ...(sessionEvidence ? { sessionEvidence } : {}),
    text: async () => {
      const { path, sessionId } = covered;
      // The text ranking scores a window of its own, wider than the candidates it returns
      // (text/search-limit.ts), so the fused order does not change with `limit`.
      const messages = (
        await space.searchText(query, {
          ...window,
          rankWindow: recallRankWindow(limit),
        })
      )
        .filter((hit) => path === null || path.has(hit.id))
        .map((hit) => ({
          sessionId: sessionId ?? hit.sessionId ?? "",
          kind: "message" as const,
          id: hit.id,
          hit,
        }));
      return interleave(messages, await covered.summaries(query, window));
    },
    semantic: covered.semantic,
    resolve: (items) => resolveInSessions(space, covered, items),
  });
}
