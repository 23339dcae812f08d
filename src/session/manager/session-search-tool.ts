/**
 * The `session_search` tool (`manager.tools()`), loaded when the tools are asked for: its input,
 * its prompt and its call of `manager.search()` (docs/search.md#what-the-model-sees).
 */
import type { ArborTool } from "../context/tools/index.js";
import {
  objectProperty,
  stringProperty,
  toolInputSchema,
} from "../context/tools/tool-schema.js";
import { formatSearch, type ManagerSearch } from "./manager-search.js";

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
