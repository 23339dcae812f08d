import { isSearchProvider } from "../../contracts/context-provider.js";
import type { ContextBlock } from "../types.js";
import {
  objectProperty,
  stringProperty,
  toolInputSchema,
} from "./tool-schema.js";
import { quoted, safely, type ArborTool, type ToolHost } from "./tool-types.js";

interface SearchInput {
  label: string;
  query: string;
  /** Only entries at or after this date or instant (ISO-8601). */
  since?: string;
  /** Only entries before this date or instant (ISO-8601). */
  until?: string;
}

/** `search_context` (docs/behavior/context-blocks.md) for the searchable blocks; `null` if there are none. */
export function searchContextTool(
  host: ToolHost,
  blocks: readonly ContextBlock[],
): ArborTool<SearchInput> | null {
  const searchable = blocks
    .filter((block) => block.isSearchable)
    .map((block) => block.label);
  if (searchable.length === 0) return null;
  return {
    description: `Search a searchable context block for relevant entries. ONLY these blocks are searchable: ${quoted(searchable)}. since/until (ISO-8601 dates) keep only entries in that range, where the block's entries have times (past conversations do).`,
    inputSchema: toolInputSchema<SearchInput>(
      objectProperty(
        {
          label: stringProperty("Searchable block label", searchable),
          query: stringProperty("Search query"),
          since: stringProperty(
            "Optional: only entries at or after this ISO-8601 date or instant, e.g. 2023-05-01",
          ),
          until: stringProperty(
            "Optional: only entries before this ISO-8601 date or instant, e.g. 2023-06-01",
          ),
        },
        ["label", "query"],
      ),
    ),
    execute: (input) =>
      safely(async () => {
        const provider = host.blocks.config(input.label)?.provider;
        if (!searchable.includes(input.label) || !isSearchProvider(provider)) {
          return `Error: "${input.label}" is not searchable. Searchable blocks: ${searchable.join(", ")}`;
        }
        const range = {
          ...(input.since ? { since: input.since } : {}),
          ...(input.until ? { until: input.until } : {}),
        };
        return (
          (await (Object.keys(range).length > 0
            ? provider.search(input.query, range)
            : provider.search(input.query))) ?? "No results found."
        );
      }),
  };
}
