import { isToolPart } from "../../session/messages/tool-parts.js";
import type {
  SessionMessage,
  SessionMessagePart,
} from "../../session/contracts/types.js";
import {
  sliceChars,
  truncateToolOutput,
  truncationSuffix,
} from "../../session/messages/truncate-tool-output.js";

/** Options of `truncateOlderMessages` (docs/behavior/overlays.md). */
export interface TruncateOptions {
  /** Messages at the end left untouched. Default 4. */
  keepRecent?: number;
  /** Budget of each older tool output, in characters of JSON. Default 500. */
  maxToolOutputChars?: number;
  /** Longest older text part kept whole. Default 10000. */
  maxTextChars?: number;
}

/**
 * Read-time micro-compaction (docs/behavior/overlays.md): shortens long tool outputs and text parts of all but the
 * last `keepRecent` messages, on copies. Unchanged messages keep their identity; stored data is never
 * modified. Returns the input array itself when it has at most `keepRecent` messages.
 *
 * @example
 * ```ts
 * const messages = truncateOlderMessages(await session.getHistory(), { keepRecent: 6 });
 * ```
 */
export function truncateOlderMessages(
  messages: SessionMessage[],
  options: TruncateOptions = {},
): SessionMessage[] {
  const keepRecent = options.keepRecent ?? 4;
  const maxToolOutputChars = options.maxToolOutputChars ?? 500;
  const maxTextChars = options.maxTextChars ?? 10_000;
  if (messages.length <= keepRecent) return messages;
  const olderCount = messages.length - keepRecent;
  return messages.map((message, index) => {
    if (index >= olderCount) return message;
    let changed = false;
    const parts = message.parts.map((part) => {
      const shortened = truncatePart(part, maxToolOutputChars, maxTextChars);
      if (shortened !== part) changed = true;
      return shortened;
    });
    return changed ? { ...message, parts } : message;
  });
}

// --- Internal helpers ---

function truncatePart(
  part: SessionMessagePart,
  maxToolOutputChars: number,
  maxTextChars: number,
): SessionMessagePart {
  if (isToolPart(part) && part.output !== undefined) {
    const result = truncateToolOutput(part.output, maxToolOutputChars);
    return result.truncated ? { ...part, output: result.output } : part;
  }
  if (
    part.type === "text" &&
    typeof part.text === "string" &&
    part.text.length > maxTextChars
  ) {
    return {
      ...part,
      text:
        sliceChars(part.text, maxTextChars) +
        truncationSuffix(part.text.length),
    };
  }
  return part;
}
