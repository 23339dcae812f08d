import { isToolPart } from "../session/messages/tool-parts.js";
import type { SessionMessage } from "../session/contracts/types.js";

/** True when the message has a tool part (`tool-*` or `dynamic-tool`) (docs/behavior/overlays.md). */
export function hasToolCalls(message: SessionMessage): boolean {
  return message.parts.some(isToolPart);
}

/** The `toolCallId`s of the message's tool parts. */
export function toolCallIdsOf(message: SessionMessage): Set<string> {
  const ids = new Set<string>();
  for (const part of message.parts) {
    if (isToolPart(part) && typeof part.toolCallId === "string")
      ids.add(part.toolCallId);
  }
  return ids;
}

/** True when some part of the message carries one of the call ids (docs/behavior/overlays.md "a result for"). */
export function isResultFor(
  message: SessionMessage,
  callIds: ReadonlySet<string>,
): boolean {
  return message.parts.some(
    (part) =>
      typeof part.toolCallId === "string" && callIds.has(part.toolCallId),
  );
}

/**
 * Where each tool call id occurs: the ascending indices of the messages with a part carrying it.
 * A call and its result form one group, whatever the transcript shape (one AI SDK part, a result
 * message right after the call, or a result many messages later).
 */
export function toolCallGroups(
  messages: readonly SessionMessage[],
): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  messages.forEach((message, index) => {
    for (const part of message.parts) {
      if (typeof part.toolCallId !== "string") continue;
      const indices = groups.get(part.toolCallId);
      if (!indices) groups.set(part.toolCallId, [index]);
      else if (indices.at(-1) !== index) indices.push(index);
    }
  });
  return groups;
}

/** True when no tool call group has messages on both sides of the boundary before `index`. */
export function isCleanCut(
  groups: ReadonlyMap<string, readonly number[]>,
  index: number,
): boolean {
  for (const indices of groups.values()) {
    if (indices[0]! < index && indices.at(-1)! >= index) return false;
  }
  return true;
}
