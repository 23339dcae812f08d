import {
  isSearchProvider,
  isSkillProvider,
} from "../../contracts/context-provider.js";
import type { ContextBlock } from "../types.js";
import { entryKey } from "./entry-key.js";
import { ArborError } from "../../errors/index.js";
import {
  objectProperty,
  stringProperty,
  toolInputSchema,
} from "./tool-schema.js";
import { quoted, safely, type ArborTool, type ToolHost } from "./tool-types.js";

interface SetContextInput {
  label: string;
  content: string;
  action?: "replace" | "append";
  metadata?: { title?: string; description?: string };
}

/** `set_context` (docs/behavior/context-blocks.md), for the writable blocks among `blocks`; `null` if there are none. */
export function setContextTool(
  host: ToolHost,
  blocks: readonly ContextBlock[],
): ArborTool<SetContextInput> | null {
  const writable = blocks.filter((block) => block.writable);
  const first = writable[0];
  if (!first) return null;
  const labels = writable.map((block) => block.label);
  const keyed = writable.filter((block) => block.isSkill || block.isSearchable);

  const properties = {
    label: stringProperty("Block label to write to", labels),
    content: stringProperty("The main content to write to the block."),
    action: stringProperty("replace (default) or append", [
      "replace",
      "append",
    ]),
    ...(keyed.length > 0
      ? {
          metadata: objectProperty(
            {
              title: stringProperty(
                "Stable identifier: writing the same title again updates the same entry.",
              ),
              description: stringProperty(
                "One-line summary shown next to the title in the prompt.",
              ),
            },
            [],
            `Only for keyed blocks (${quoted(keyed.map((block) => block.label))}).`,
          ),
        }
      : {}),
  };

  const lines = writable.map(
    (block) =>
      `- "${block.label}" (${kindOf(block)}): ${block.description || "no description"}`,
  );
  let description = `Write to a context block. Available blocks:\n${lines.join("\n")}\nWrites are durable and persist across sessions.`;
  if (keyed.length > 0) {
    description +=
      "\nFor keyed blocks pass metadata: { title, description }. A title gives the entry a stable key, so writing the same title again updates that entry instead of adding a new one; a description is shown next to the title and helps pick the right entry later.";
  }

  return {
    description,
    inputSchema: toolInputSchema<SetContextInput>(
      objectProperty(properties, ["label", "content"]),
    ),
    execute: (input, options) =>
      safely(async () => {
        const block = host.blocks.get(input.label);
        const provider = host.blocks.config(input.label)?.provider;
        if (!block) return `Error: block "${input.label}" not found`;

        if ((block.isSkill || block.isSearchable) && provider) {
          const key = entryKey(input.content, input.metadata?.title);
          if (block.isSkill && isSkillProvider(provider) && provider.set) {
            await provider.set(
              key,
              input.content,
              input.metadata?.description ?? input.metadata?.title,
            );
          } else if (isSearchProvider(provider) && provider.set) {
            await provider.set(key, input.content);
          } else {
            throw new ArborError(
              "BLOCK_READONLY",
              `Block "${input.label}" is readonly`,
            );
          }
          await host.blocks.reload(input.label, { keepIfEmpty: block.isSkill });
          return `Indexed "${key}" in ${input.label}.`;
        }

        const source = {
          source: "tool" as const,
          ...(options?.toolCallId !== undefined
            ? { toolCallId: options.toolCallId }
            : {}),
        };
        const written =
          input.action === "append"
            ? await host.blocks.append(input.label, input.content, source)
            : await host.blocks.replace(input.label, input.content, source);
        return written.maxTokens
          ? `Written to ${input.label}. Usage: ${Math.round((written.tokens / written.maxTokens) * 100)}% (${written.tokens}/${written.maxTokens} tokens)`
          : `Written to ${input.label}. Usage: ${written.tokens} tokens`;
      }),
  };
}

// --- Internal helpers ---

function kindOf(block: ContextBlock): string {
  if (block.isSkill) return "skill collection, keyed entries";
  if (block.isSearchable) return "searchable, keyed entries";
  return "writable";
}
