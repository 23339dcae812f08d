import type { ContextBlocks } from "../context-blocks.js";
import type { SkillTracker } from "../skills.js";

/** One tool in the AI SDK `ToolSet` shape: `execute` always resolves to a string. */
export interface ArborTool<Input = unknown> {
  description: string;
  inputSchema: unknown;
  execute(input: Input, options?: { toolCallId?: string }): Promise<string>;
}

/** A `ToolSet`: tools by name. */
export type ArborToolSet = Record<string, ArborTool<never>>;

/** What the tools need from their session. */
export interface ToolHost {
  readonly blocks: ContextBlocks;
  readonly skills: SkillTracker;
  /** Unloads a skill and reclaims its context; `false` if it was not loaded. */
  unloadSkill(label: string, key: string): Promise<boolean>;
}

/** Tool failures become strings starting `Error: `; a tool never throws (docs/behavior/context-blocks.md). */
export async function safely(run: () => Promise<string>): Promise<string> {
  try {
    return await run();
  } catch (error) {
    return `Error: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** `"a", "b"`. */
export const quoted = (labels: readonly string[]): string =>
  labels.map((label) => `"${label}"`).join(", ");
