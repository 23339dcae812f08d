import { isToolPart } from "../session/messages/tool-parts.js";
import type { SessionMessage, SessionMessagePart } from "../session/index.js";

/** `errorText` of a tool call whose turn stopped before the tool returned. */
export const INTERRUPTED_TOOL_ERROR =
  "The turn was stopped before this tool returned a result.";

/**
 * Makes an interrupted answer (aborted or failed mid-stream) a valid, settled UI message, so the
 * stored transcript never holds half-states that the AI SDK cannot send back to a model:
 *
 * - a tool call still streaming its input (`input-streaming`) is dropped: it never ran;
 * - a tool call with its input but no result (`input-available`) becomes `output-error` with
 *   {@link INTERRUPTED_TOOL_ERROR}: it may have run, the model is told it has no result;
 * - text and reasoning still streaming are kept as far as they got and marked `done`; empty
 *   ones are dropped;
 * - `step-start` markers with nothing after them are dropped.
 *
 * Returns `null` when nothing but step markers is left. Does not mutate its input.
 */
export function settleInterruptedMessage(
  message: SessionMessage,
): SessionMessage | null {
  const parts: SessionMessagePart[] = [];
  for (const part of message.parts) {
    const settled = settlePart(part);
    if (settled) parts.push(settled);
  }
  while (parts.length > 0 && parts.at(-1)!.type === "step-start") parts.pop();
  const hasContent = parts.some((part) => part.type !== "step-start");
  return hasContent ? { ...message, parts } : null;
}

// --- Internal helpers ---

function settlePart(part: SessionMessagePart): SessionMessagePart | null {
  if (isToolPart(part)) {
    if (part.state === "input-streaming") return null;
    if (part.state === "input-available") {
      return {
        ...part,
        state: "output-error",
        errorText: INTERRUPTED_TOOL_ERROR,
      };
    }
    return part;
  }
  if (part.type === "text" || part.type === "reasoning") {
    if (typeof part.text === "string" && part.text === "") return null;
    return part.state === "streaming" ? { ...part, state: "done" } : part;
  }
  return part;
}
