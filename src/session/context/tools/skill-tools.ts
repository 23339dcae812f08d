import { isSkillProvider } from "../../contracts/context-provider.js";
import type { ContextBlock } from "../types.js";
import {
  objectProperty,
  stringProperty,
  toolInputSchema,
} from "./tool-schema.js";
import { quoted, safely, type ArborTool, type ToolHost } from "./tool-types.js";

interface SkillInput {
  label: string;
  key: string;
}

/** `load_context` and `unload_context` (docs/behavior/context-blocks.md) for the skill blocks; `null` if there are none. */
export function skillTools(
  host: ToolHost,
  blocks: readonly ContextBlock[],
): {
  load_context: ArborTool<SkillInput>;
  unload_context: ArborTool<SkillInput>;
} | null {
  const skills = blocks
    .filter((block) => block.isSkill)
    .map((block) => block.label);
  if (skills.length === 0) return null;
  const skillInput = (keyDescription: string) =>
    toolInputSchema<SkillInput>(
      objectProperty(
        {
          label: stringProperty("Skill block label", skills),
          key: stringProperty(keyDescription),
        },
        ["label", "key"],
      ),
    );
  const notSkill = (label: string) =>
    `Error: "${label}" is not a skill block. Skill blocks: ${skills.join(", ")}`;
  const loaded = [...host.skills.keys()];

  return {
    load_context: {
      description: `Load a document from a skill block by key. Skill blocks: ${quoted(skills)}. The available keys are listed under each skill block in the system prompt.`,
      inputSchema: skillInput("Skill key to load"),
      execute: (input) =>
        safely(async () => {
          const provider = host.blocks.config(input.label)?.provider;
          if (!skills.includes(input.label) || !isSkillProvider(provider)) {
            return notSkill(input.label);
          }
          const content = await provider.load(input.key);
          if (content === null) return `Not found: ${input.key}`;
          host.skills.add(input.label, input.key);
          return content;
        }),
    },
    unload_context: {
      description: `Unload a previously loaded skill to free context space. The skill stays available and can be loaded again with load_context.${
        loaded.length > 0
          ? ` Currently loaded: ${loaded.join(", ")}.`
          : " No skills currently loaded."
      }`,
      inputSchema: skillInput("Skill key to unload"),
      execute: (input) =>
        safely(async () => {
          if (!skills.includes(input.label)) return notSkill(input.label);
          if (!(await host.unloadSkill(input.label, input.key))) {
            return `Skill "${input.key}" is not currently loaded in "${input.label}".`;
          }
          return `Unloaded "${input.key}" from ${input.label}. Context reclaimed.`;
        }),
    },
  };
}
