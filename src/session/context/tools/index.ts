import type { ContextBlock } from "../types.js";
import { searchContextTool } from "./search-context.js";
import { setContextTool } from "./set-context.js";
import { skillTools } from "./skill-tools.js";
import type { ArborToolSet, ToolHost } from "./tool-types.js";

export type { ArborTool, ArborToolSet, ToolHost } from "./tool-types.js";
export { entryKey } from "./entry-key.js";

/** The context tools for the loaded blocks: a tool of a kind exists only if a block of that kind does. */
export function buildContextTools(
  host: ToolHost,
  blocks: readonly ContextBlock[],
): ArborToolSet {
  const tools: ArborToolSet = {};
  const setContext = setContextTool(host, blocks);
  if (setContext) tools.set_context = setContext;
  const skills = skillTools(host, blocks);
  if (skills) {
    tools.load_context = skills.load_context;
    tools.unload_context = skills.unload_context;
  }
  const search = searchContextTool(host, blocks);
  if (search) tools.search_context = search;
  return tools;
}
