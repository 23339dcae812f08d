import type { SearchProvider } from "../contracts/context-provider.js";
import type { SessionRegistry } from "../contracts/registry.js";
import type { SearchHit } from "../embeddings/types.js";
import type { ManagerSearchOptions } from "./manager-options.js";

/** How many hits the model sees, through the tool or the searchable-history block. */
const MODEL_SEARCH_LIMIT = 10;
/** Turns shown before and after each hit the model sees. */
const MODEL_SEARCH_CONTEXT = 1;

/** A search over the manager's sessions (`manager.search`), as the tool and the block call it. */
export type ManagerSearch = (
  query: string,
  options: ManagerSearchOptions,
) => Promise<SearchHit[]>;

/**
 * The read-only block of `withSearchableHistory()`: a session count, and search over all of
 * them (`search_context`), in the manager's default mode, rendered as `session_search` renders.
 */
export function historyProvider(
  registry: SessionRegistry,
  search: ManagerSearch,
): SearchProvider {
  return {
    get: async () => {
      const count = await registry.count();
      if (count === 0) return null;
      return `${count} ${count === 1 ? "session" : "sessions"} available for search.`;
    },
    search: (query, options) =>
      formatSearch(search, query, {
        ...(options?.since ? { since: options.since } : {}),
        ...(options?.until ? { until: options.until } : {}),
      }),
  };
}

/** The model's search: the best hits with one turn either side, rendered within the budget. */
export async function formatSearch(
  search: ManagerSearch,
  query: string,
  options: Pick<ManagerSearchOptions, "since" | "until" | "timeZone">,
): Promise<string | null> {
  const hits = await search(query, {
    ...options,
    limit: MODEL_SEARCH_LIMIT,
    context: MODEL_SEARCH_CONTEXT,
  });
  const { renderSearchHits } = await import("./search-render.js");
  return renderSearchHits(hits, query);
}
