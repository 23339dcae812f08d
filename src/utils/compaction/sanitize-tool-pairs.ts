import { isToolPart } from "../../session/messages/tool-parts.js";
import type {
  SessionMessage,
  SessionMessagePart,
} from "../../session/contracts/types.js";

/** The output given to a call whose result is no longer in the messages (docs/behavior/overlays.md). */
export const MISSING_TOOL_RESULT_OUTPUT =
  "[Result from earlier conversation — see context summary above]";

/** AI SDK states that already settle a call without an `output`. */
const SETTLED_STATES = new Set(["output-error", "output-denied"]);

/**
 * A call the user has just approved: the AI SDK runs it when the request's last message holds it,
 * so there it is left as it is; anywhere earlier it never ran and is completed like any other.
 */
const APPROVED_STATE = "approval-responded";

/**
 * Makes tool calls and results consistent after compaction or filtering, for context assembly
 * (docs/behavior/overlays.md). Removes results whose call is gone (dropping messages left empty) and completes calls
 * whose result is gone in place, as valid AI SDK parts (`state: "output-available"` with a note as
 * `output`), except a just-approved call in the last message, which the AI SDK is about to run.
 * Returns a new array; untouched messages keep their identity, nothing is mutated.
 */
export function sanitizeToolPairs(
  messages: readonly SessionMessage[],
): SessionMessage[] {
  const callIds = new Set<string>();
  const resultIds = new Set<string>();
  for (const message of messages) {
    for (const part of message.parts) {
      if (!isToolPart(part) || typeof part.toolCallId !== "string") continue;
      if (message.role === "assistant") callIds.add(part.toolCallId);
      if (hasResult(part)) resultIds.add(part.toolCallId);
    }
  }

  const sanitized: SessionMessage[] = [];
  for (const [at, message] of messages.entries()) {
    const last = at === messages.length - 1;
    let changed = false;
    const parts: SessionMessagePart[] = [];
    for (const part of message.parts) {
      const id = isToolPart(part) ? part.toolCallId : undefined;
      if (typeof id !== "string") {
        parts.push(part);
      } else if (hasResult(part) && !callIds.has(id)) {
        changed = true; // an orphan result: its call was cut
      } else if (
        message.role === "assistant" &&
        !resultIds.has(id) &&
        !hasResult(part) &&
        !(last && part.state === APPROVED_STATE)
      ) {
        parts.push({
          ...part,
          state: "output-available",
          output: MISSING_TOOL_RESULT_OUTPUT,
        });
        changed = true;
      } else {
        parts.push(part);
      }
    }
    if (!changed) sanitized.push(message);
    else if (parts.length > 0) sanitized.push({ ...message, parts });
  }
  return sanitized;
}

// --- Internal helpers ---

function hasResult(part: SessionMessagePart): boolean {
  return (
    part.output !== undefined ||
    part.result !== undefined ||
    (typeof part.state === "string" && SETTLED_STATES.has(part.state))
  );
}
