import type { SessionMessage, SessionMessagePart } from "../contracts/types.js";
import { jsonBytes } from "./json-text.js";
import { sliceChars, truncateToolOutput } from "./truncate-tool-output.js";

/** Largest stored message, in UTF-8 bytes of its JSON: headroom under Durable Object SQLite's 2 MB rows. */
export const ROW_MAX_BYTES = 1_800_000;

const TOOL_OUTPUT_BUDGET = 1000;
const TEXT_LIMIT = 1000;
const TEXT_PREVIEW = 500;

/** Options of `enforceRowSizeLimit`. */
export interface RowSizeLimitOptions {
  /** Default `ROW_MAX_BYTES`. */
  maxBytes?: number;
  /** Told what was shortened. Default `console.warn`. */
  warn?: (message: string) => void;
}

/**
 * Shrinks a message whose JSON exceeds the row limit before it is stored (docs/behavior/overlays.md): first an
 * assistant message's tool outputs (with a note to re-run the tool), then long text parts, until it
 * fits. Returns the message itself when it already fits, else a copy that lists what was shortened
 * in `metadata.compactedToolOutputs` (call ids) and `metadata.compactedTextParts` (part indices).
 */
export function enforceRowSizeLimit(
  message: SessionMessage,
  options: RowSizeLimitOptions = {},
): SessionMessage {
  const maxBytes = options.maxBytes ?? ROW_MAX_BYTES;
  const warn = options.warn ?? ((text: string) => console.warn(text));
  const originalBytes = jsonBytes(message);
  if (originalBytes <= maxBytes) return message;

  const parts = [...message.parts];
  const compactedToolOutputs: string[] = [];
  if (message.role === "assistant") {
    parts.forEach((part, index) => {
      const output = compactToolOutput(part);
      if (output === undefined) return;
      parts[index] = { ...part, output };
      compactedToolOutputs.push(part.toolCallId as string);
    });
  }
  let bytes = jsonBytes({ ...message, parts });

  const compactedTextParts: number[] = [];
  for (let index = 0; index < parts.length && bytes > maxBytes; index++) {
    const part = parts[index]!;
    if (
      part.type !== "text" ||
      typeof part.text !== "string" ||
      part.text.length <= TEXT_LIMIT
    )
      continue;
    const text = `[Text truncated for storage (${part.text.length} chars). First ${TEXT_PREVIEW} chars: ${sliceChars(part.text, TEXT_PREVIEW)}...]`;
    // Only the JSON of the text value changes, so the new size follows without re-encoding the message.
    bytes += jsonBytes(text) - jsonBytes(part.text);
    parts[index] = { ...part, text };
    compactedTextParts.push(index);
  }

  if (compactedToolOutputs.length === 0 && compactedTextParts.length === 0) {
    warn(
      `[arbor] Message "${message.id}" is ${originalBytes} bytes, over the ${maxBytes}-byte row limit, and has nothing that can be shortened.`,
    );
    return message;
  }
  const result: SessionMessage = {
    ...message,
    parts,
    metadata: withCompactionRecord(
      message.metadata,
      compactedToolOutputs,
      compactedTextParts,
    ),
  };
  const finalBytes = jsonBytes(result);
  warn(
    `[arbor] Message "${message.id}" was ${originalBytes} bytes, over the ${maxBytes}-byte row limit; shortened ${compactedToolOutputs.length} tool output(s) and ${compactedTextParts.length} text part(s) to ${finalBytes} bytes${finalBytes > maxBytes ? ", still over the limit" : ""}.`,
  );
  return result;
}

// --- Internal helpers ---

/** The compacted output of a finished tool call, or `undefined` when the part is left as is. */
function compactToolOutput(part: SessionMessagePart): unknown {
  if (
    typeof part.toolCallId !== "string" ||
    part.state !== "output-available" ||
    part.output === undefined
  )
    return undefined;
  const output = part.output;
  if (typeof output === "string") {
    if (output.length <= TOOL_OUTPUT_BUDGET) return undefined;
    return `${sliceChars(output, TOOL_OUTPUT_BUDGET)}\n[Output truncated for storage: ${output.length} chars. Re-run the tool to get the full result.]`;
  }
  const result = truncateToolOutput(output, TOOL_OUTPUT_BUDGET);
  return result.truncated ? result.output : undefined;
}

function withCompactionRecord(
  metadata: unknown,
  toolCallIds: string[],
  textPartIndices: number[],
): Record<string, unknown> {
  const record: Record<string, unknown> = isRecord(metadata)
    ? { ...metadata }
    : {};
  if (toolCallIds.length > 0)
    record.compactedToolOutputs = union(
      record.compactedToolOutputs,
      toolCallIds,
    );
  if (textPartIndices.length > 0)
    record.compactedTextParts = union(
      record.compactedTextParts,
      textPartIndices,
    );
  return record;
}

/** Earlier entries (a message shortened on append, then again on update) followed by new ones. */
function union<T>(existing: unknown, added: T[]): T[] {
  const earlier = Array.isArray(existing) ? (existing as T[]) : [];
  return [...new Set([...earlier, ...added])];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
