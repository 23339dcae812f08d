import {
  ArborError,
  ArborTypeError,
  COMPACTION_PREFIX,
  isCompactionMessage,
  type Session,
  type SessionMessage,
  type SessionMessagePart,
} from "../session/index.js";
import type { UserInput } from "./types.js";

/** Builds the stored user message of a turn: `metadata.createdAt` is added, other fields kept. */
export function toUserMessage(
  input: UserInput,
  generateId: () => string,
): SessionMessage {
  const createdAt = new Date().toISOString();
  if (typeof input === "string") {
    assertHasContent([{ type: "text", text: input }], "A turn");
    return {
      id: generateId(),
      role: "user",
      parts: [{ type: "text", text: input }],
      metadata: { createdAt },
    };
  }
  if (
    typeof input !== "object" ||
    input === null ||
    !Array.isArray(input.parts) ||
    (input.role !== undefined && input.role !== "user")
  ) {
    throw new ArborTypeError(
      "INVALID_ARGUMENT",
      '[arbor] [agent] A turn takes a string or a user message ({ parts, id?, metadata? }) with role "user"',
    );
  }
  assertHasContent(input.parts, "A turn");
  const metadata =
    typeof input.metadata === "object" && input.metadata !== null
      ? input.metadata
      : {};
  return {
    ...input,
    id:
      typeof input.id === "string" && input.id !== "" ? input.id : generateId(),
    role: "user",
    parts: input.parts,
    metadata: { createdAt, ...metadata },
  };
}

/** Parts for an edited user message: a string becomes one text part. */
export function toParts(
  content: string | SessionMessagePart[],
): SessionMessagePart[] {
  const parts =
    typeof content === "string"
      ? [{ type: "text", text: content }]
      : Array.isArray(content)
        ? content
        : null;
  if (!parts) {
    throw new ArborTypeError(
      "INVALID_ARGUMENT",
      "[arbor] [agent] editUserMessage() takes a string or an array of parts",
    );
  }
  assertHasContent(parts, "editUserMessage()");
  return parts;
}

/**
 * Rejects a user message with nothing to say (no parts, or only blank text). Stored, it would be
 * sent as `content: []` on every later turn of its branch, which models reject or misread.
 */
function assertHasContent(parts: SessionMessagePart[], caller: string): void {
  const hasContent = parts.some(
    (part) =>
      part.type !== "text" ||
      (typeof part.text === "string" && part.text.trim() !== ""),
  );
  if (!hasContent) {
    throw new ArborTypeError(
      "INVALID_ARGUMENT",
      `[arbor] [agent] ${caller} needs a user message with content: the text is empty or blank and there are no other parts`,
    );
  }
}

/** The stored message, or `MESSAGE_NOT_FOUND`. */
export async function requireMessage(
  session: Session,
  id: string,
): Promise<SessionMessage> {
  const message = typeof id === "string" ? await session.getMessage(id) : null;
  if (!message) {
    throw new ArborError(
      "MESSAGE_NOT_FOUND",
      `[arbor] [agent] Message "${String(id)}" is not in this session`,
    );
  }
  return message;
}

/**
 * The parent id of a stored message (`null` for a root), read from its path. When the parent is
 * hidden behind a compaction summary, the overlay's last covered message is the parent.
 */
export async function parentOf(
  session: Session,
  messageId: string,
): Promise<string | null> {
  const path = await session.getHistory(messageId);
  if (path.at(-1)?.id !== messageId) {
    throw new ArborTypeError(
      "INVALID_ARGUMENT",
      `[arbor] [agent] Message "${messageId}" is covered by a compaction summary; remove the compaction to branch from it`,
    );
  }
  const previous = path.at(-2);
  if (!previous) return null;
  if (!isCompactionMessage(previous)) return previous.id;
  const overlayId = previous.id.slice(COMPACTION_PREFIX.length);
  const overlay = (await session.getCompactions()).find(
    (compaction) => compaction.id === overlayId,
  );
  if (!overlay) {
    throw new ArborError(
      "MESSAGE_NOT_FOUND",
      `[arbor] [agent] The compaction before message "${messageId}" is gone`,
    );
  }
  return overlay.toMessageId;
}

/**
 * The user message a regenerate answers: the given user message, the user message an answer
 * replies to, or (no id) the last user message of the active branch.
 */
export async function regenerateTarget(
  session: Session,
  messageId: string | undefined,
): Promise<SessionMessage> {
  if (messageId === undefined) {
    const history = await session.getHistory();
    const last = history.findLast(
      (message) => message.role === "user" && !isCompactionMessage(message),
    );
    if (!last) {
      throw new ArborError(
        "MESSAGE_NOT_FOUND",
        "[arbor] [agent] regenerate(): the active branch has no user message",
      );
    }
    return last;
  }
  const message = await requireMessage(session, messageId);
  if (message.role === "user") return message;
  const parentId =
    message.role === "assistant" ? await parentOf(session, messageId) : null;
  const parent = parentId ? await session.getMessage(parentId) : null;
  if (parent?.role !== "user") {
    throw new ArborTypeError(
      "INVALID_ARGUMENT",
      `[arbor] [agent] regenerate() takes a user message or an answer to one; "${messageId}" is neither`,
    );
  }
  return parent;
}
