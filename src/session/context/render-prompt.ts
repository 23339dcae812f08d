import type { ContextBlock } from "./types.js";

/** 46 × U+2550, the separator around each block header (docs/behavior/context-blocks.md). */
export const BLOCK_SEPARATOR = "═".repeat(46);

/**
 * Renders loaded blocks into the system prompt exactly as docs/behavior/context-blocks.md says: empty read-only blocks
 * are skipped (empty writable, skill and search blocks still render, so the model knows the
 * tools can address them); each block is separator, header, separator, content.
 */
export function renderSystemPrompt(blocks: readonly ContextBlock[]): string {
  return blocks
    .filter(
      (block) =>
        block.content !== "" ||
        block.writable ||
        block.isSkill ||
        block.isSearchable,
    )
    .map((block) =>
      [
        BLOCK_SEPARATOR,
        blockHeader(block),
        BLOCK_SEPARATOR,
        block.content,
      ].join("\n"),
    )
    .join("\n\n");
}

/** `LABEL (description) [pct% — tokens/max tokens] [tag]`. */
export function blockHeader(block: ContextBlock): string {
  let header = block.label.toUpperCase();
  if (block.description) header += ` (${block.description})`;
  if (block.maxTokens) {
    const percent = Math.round((block.tokens / block.maxTokens) * 100);
    header += ` [${percent}% — ${block.tokens}/${block.maxTokens} tokens]`;
  }
  return `${header} [${blockTag(block)}]`;
}

function blockTag(block: ContextBlock): string {
  if (block.isSearchable) return "searchable";
  if (block.isSkill) return "loadable";
  return block.writable ? "writable" : "readonly";
}
