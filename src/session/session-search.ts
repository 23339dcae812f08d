/**
 * `session.search()` with the options around the ranking (docs/search.md): time named in the
 * query as a boost (`now`, `timeZone`) and the turns around each hit (`context`).
 */
import { searchWithRecall } from "./embeddings/session-embeddings.js";
import type { SearchHit, SessionSearchOptions } from "./embeddings/types.js";
import type { SessionRuntime } from "./session-runtime.js";

/** Searches one session; see the module comment. */
export async function searchSessionHits(
  runtime: SessionRuntime,
  query: string,
  options: SessionSearchOptions,
): Promise<SearchHit[]> {
  // Loaded on first use, as the recall ranking is: a Worker bundle keeps them in their own chunk.
  const [{ searchWithQueryTime }, { checkHitContext, hitNeighbours }] =
    await Promise.all([
      import("./embeddings/query-time-search.js"),
      import("./embeddings/hit-neighbours.js"),
    ]);
  const context = checkHitContext(options.context);
  const {
    now: _now,
    timeZone: _timeZone,
    context: _context,
    since: _since,
    until: _until,
    ...ranking
  } = options;
  const hits = await searchWithQueryTime(query, options, (text, window) =>
    searchWithRecall(runtime, text, { ...ranking, ...window }),
  );
  if (context === 0 || hits.length === 0) return hits;
  const { tree } = await runtime.ready();
  const around = await hitNeighbours(tree, hits, context);
  return hits.map((hit, index) => ({ ...hit, context: around[index]! }));
}
