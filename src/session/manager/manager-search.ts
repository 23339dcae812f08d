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
import type { ManagerSearchOptions } from "./manager-options.js";

/** How many hits the model sees, through the tool or the searchable-history block. */
const MODEL_SEARCH_LIMIT = 10;

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
) => Promise<SearchResult[]>;

/** The `session_search` tool: the model searches past conversations across all sessions. */
export function sessionSearchTool(
  search: ManagerSearch,
): ArborTool<{ query: string }> {
  return {
    description:
      "Search past conversations for relevant context. Searches the messages of all sessions, not only the current one.",
    inputSchema: toolInputSchema<{ query: string }>(
      objectProperty({ query: stringProperty("Search query") }, ["query"]),
    ),
    execute: async ({ query }) => {
      try {
        return (await formatSearch(search, query)) ?? "No results found.";
      } catch (error) {
        // The model gets the failure as text: a tool call must not end the turn.
        return `Error: ${error instanceof Error ? error.message : String(error)}`;
      }
    },
  };
}

/**
 * The read-only block of `withSearchableHistory()`: a session count, and search over all of
 * them (`search_context`), in the manager's default mode.
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
    search: (query) => formatSearch(search, query),
  };
}

// --- Internal helpers ---

async function formatSearch(
  search: ManagerSearch,
  query: string,
): Promise<string | null> {
  const hits = await search(query, { limit: MODEL_SEARCH_LIMIT });
  if (hits.length === 0) return null;
  return hits.map((hit) => `[${hit.role}] ${hit.content}`).join("\n---\n");
}
