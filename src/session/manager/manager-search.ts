import type { SearchProvider } from "../contracts/context-provider.js";
import type {
  RegistrySearchOptions,
  SessionRegistry,
} from "../contracts/registry.js";
import type { SearchResult } from "../contracts/types.js";
import type { ArborTool } from "../context/tools/index.js";
import {
  objectProperty,
  stringProperty,
  toolInputSchema,
} from "../context/tools/tool-schema.js";
import { normalizeSearchLimit } from "../core/search-limit.js";
import { queryTerms } from "../core/search-terms.js";
import { normalizeTextSearchOptions } from "../core/search-options.js";
import type { SearchHit } from "../embeddings/types.js";
import type { ManagerSearchOptions } from "./manager-options.js";
import { renderSearchHits } from "./search-render.js";

/** How many hits the model sees, through the tool or the searchable-history block. */
const MODEL_SEARCH_LIMIT = 10;
/** Turns shown before and after each hit the model sees. */
const MODEL_SEARCH_CONTEXT = 1;

/**
 * Text search across the registered sessions (ranked any-term by default, `match: "all"` for
 * every term); results carry `sessionId`.
 */
export async function searchSessions(
  registry: SessionRegistry,
  query: string,
  options: ManagerSearchOptions,
): Promise<SearchResult[]> {
  const registryOptions = registrySearchOptions(options);
  if (queryTerms(query).length === 0) return [];
  return registry.search(query, registryOptions);
}

/** The registry's options for a manager search: limit normalized, text options checked. */
export function registrySearchOptions(
  options: ManagerSearchOptions,
): RegistrySearchOptions {
  return {
    limit: normalizeSearchLimit(options.limit),
    ...(options.sessionIds ? { sessionIds: options.sessionIds } : {}),
    ...(options.ownerId !== undefined ? { ownerId: options.ownerId } : {}),
    ...normalizeTextSearchOptions(options),
  };
}

/** A search over the manager's sessions (`manager.search`), as the tool and the block call it. */
export type ManagerSearch = (
  query: string,
  options: ManagerSearchOptions,
) => Promise<SearchHit[]>;

/** What the model passes to `session_search`. */
export interface SessionSearchInput {
  query: string;
  /** Only turns at or after this date or instant (ISO-8601). */
  since?: string;
  /** Only turns before this date or instant (ISO-8601). */
  until?: string;
}

/** Options of the model's search tools. */
export interface SearchToolOptions {
  /** The IANA time zone the model's dates mean ("yesterday", "on 7 May"); default `"UTC"`. */
  timeZone?: string;
}

/**
 * The `session_search` tool: the model searches past conversations across all sessions, and
 * reads each hit with its session, time and neighbouring turns (`renderSearchHits`).
 */
export function sessionSearchTool(
  search: ManagerSearch,
  options: SearchToolOptions = {},
): ArborTool<SessionSearchInput> {
  return {
    description:
      "Search past conversations for relevant context. Searches the messages of all sessions, not only the current one. " +
      'A date or time in the query ("in May 2023", "last week", "yesterday") ranks the turns of that time first; ' +
      "since/until (ISO-8601 dates) keep only turns in that range. Each result shows its session, time (UTC), role and the turns around it.",
    inputSchema: toolInputSchema<SessionSearchInput>(
      objectProperty(
        {
          query: stringProperty("Search query"),
          since: stringProperty(
            "Optional: only turns at or after this ISO-8601 date or instant, e.g. 2023-05-01",
          ),
          until: stringProperty(
            "Optional: only turns before this ISO-8601 date or instant, e.g. 2023-06-01",
          ),
        },
        ["query"],
      ),
    ),
    execute: async ({ query, since, until }) => {
      try {
        return (
          (await formatSearch(search, query, {
            ...options,
            ...(since ? { since } : {}),
            ...(until ? { until } : {}),
          })) ?? "No results found."
        );
      } catch (error) {
        // The model gets the failure as text: a tool call must not end the turn.
        return `Error: ${error instanceof Error ? error.message : String(error)}`;
      }
    },
  };
}

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
    search: (query) => formatSearch(search, query, {}),
  };
}

// --- Internal helpers ---

/** The model's search: the best hits with one turn either side, rendered within the budget. */
async function formatSearch(
  search: ManagerSearch,
  query: string,
  options: Pick<ManagerSearchOptions, "since" | "until" | "timeZone">,
): Promise<string | null> {
  const hits = await search(query, {
    ...options,
    limit: MODEL_SEARCH_LIMIT,
    context: MODEL_SEARCH_CONTEXT,
  });
  return renderSearchHits(hits, query);
}
