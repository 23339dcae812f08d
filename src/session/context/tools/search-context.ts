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
    description: `Search a searchable context block for relevant entries. ONLY these blocks are searchable: ${quoted(searchable)}.`,
    inputSchema: toolInputSchema<SearchInput>(
      objectProperty(
        {
          label: stringProperty("Searchable block label", searchable),
          query: stringProperty("Search query"),
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
        return (await provider.search(input.query)) ?? "No results found.";
      }),
  };
}
