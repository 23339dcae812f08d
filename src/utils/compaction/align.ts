import type { SessionMessage } from "../../session/contracts/types.js";
import { hasToolCalls, isResultFor, toolCallIdsOf } from "../tool-calls.js";

/**
 * Moves the start of a summarized range forward past tool results that answer the assistant
 * message just before it, so a call in the protected head keeps its results (docs/behavior/overlays.md).
 * Unchanged when `index <= 0` or `index >= messages.length`.
 */
export function alignBoundaryForward(
  messages: readonly SessionMessage[],
  index: number,
): number {
  if (index <= 0 || index >= messages.length) return index;
  const previous = messages[index - 1]!;
  if (!isAssistantWithToolCalls(previous)) return index;
  const callIds = toolCallIdsOf(previous);
  while (index < messages.length && isResultFor(messages[index]!, callIds))
    index++;
  return index;
}

/**
 * Moves the end of a summarized range (the first tail index) back so a tool result at the boundary
 * stays in the tail with its call (docs/behavior/overlays.md). Unchanged when out of range.
 */
export function alignBoundaryBackward(
  messages: readonly SessionMessage[],
  index: number,
): number {
  if (index <= 0 || index >= messages.length) return index;
  while (index > 0) {
    const current = messages[index]!;
    if (isAssistantWithToolCalls(current)) break;
    const previous = messages[index - 1]!;
    if (
      !isAssistantWithToolCalls(previous) ||
      !isResultFor(current, toolCallIdsOf(previous))
    )
      break;
    index--;
  }
  return index;
}

// --- Internal helpers ---

function isAssistantWithToolCalls(message: SessionMessage): boolean {
  return message.role === "assistant" && hasToolCalls(message);
}
