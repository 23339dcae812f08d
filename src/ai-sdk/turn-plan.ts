import {
  ArborError,
  ArborTypeError,
  type Session,
  type SessionMessage,
  type SessionMessagePart,
} from "../session/index.js";
import { parentOf, regenerateTarget } from "../agent/branches.js";
import type { ChatRequest } from "./request.js";
import type { ChatTurnKind } from "./types.js";

/** What a request does to the tree, decided before anything is written. */
export interface TurnPlan {
  kind: ChatTurnKind;
  /** A user message to append (submit, edit) under `parentId` (`undefined` = the active leaf). */
  append?: { message: SessionMessage; parentId: string | null | undefined };
  /** The message the answer goes under (submit, edit, regenerate). */
  answerParentId?: string;
  /** The stored assistant message continued in place, with the client's tool results merged. */
  continued?: SessionMessage;
}

/**
 * Maps a `useChat` request to a change of the tree (docs/ai-sdk.md, "Triggers"):
 *
 * - `regenerate-message`: a new answer under the same user message, a sibling of the old one;
 * - `submit-message` with `messageId`: an edit, a new user message beside the one it replaces;
 * - `submit-message` whose last message is a stored assistant message: a continuation (a tool
 *   approval or a client tool result), the message updated in place;
 * - otherwise a new user message appended to the active branch.
 *
 * `message` is the client's validated last message; nothing else of the client's history is read.
 */
export async function planTurn(
  session: Session,
  request: ChatRequest,
  message: SessionMessage | undefined,
  generateId: () => string,
): Promise<TurnPlan> {
  if (request.trigger === "regenerate-message")
    return planRegenerate(session, request, message);
  if (!message) throw invalid("a submit-message request needs the new message");
  if (message.role === "assistant") return planContinuation(session, message);
  if (message.role !== "user")
    throw invalid(`the new message is a ${message.role} message`);
  const metadata = { ...objectOr(message.metadata), createdAt: nowIso() };
  if (request.messageId !== undefined) {
    const original = await requireMessage(session, request.messageId);
    if (original.role !== "user")
      throw invalid(`"${request.messageId}" is not a user message to edit`);
    const edited: SessionMessage = {
      ...message,
      id: generateId(),
      metadata: { ...metadata, editOf: original.id },
    };
    return {
      kind: "edit",
      append: {
        message: edited,
        parentId: await parentOf(session, original.id),
      },
      answerParentId: edited.id,
    };
  }
  // The client's id is kept when it is free, so its copy of the message stays addressable.
  const taken = (await session.getMessage(message.id)) !== null;
  const stored: SessionMessage = {
    ...message,
    id: taken ? generateId() : message.id,
    metadata,
  };
  return {
    kind: "submit",
    append: { message: stored, parentId: undefined },
    answerParentId: stored.id,
  };
}

// --- Internal helpers ---

async function planRegenerate(
  session: Session,
  request: ChatRequest,
  message: SessionMessage | undefined,
): Promise<TurnPlan> {
  let targetId = request.messageId;
  // Without `messageId`, useChat sends the list cut before the answer: its last message is the
  // user message to answer again, when the store has it.
  if (
    targetId === undefined &&
    message?.role === "user" &&
    (await session.getMessage(message.id)) !== null
  )
    targetId = message.id;
  const target = await regenerateTarget(session, targetId);
  return { kind: "regenerate", answerParentId: target.id };
}

/**
 * A continuation updates the stored answer with what only the client can add: the output of a
 * client-side tool or the user's approval, per pending tool call. Every other part stays as the
 * server stored it.
 */
async function planContinuation(
  session: Session,
  message: SessionMessage,
): Promise<TurnPlan> {
  const stored = await session.getMessage(message.id);
  if (!stored || stored.role !== "assistant")
    throw new ArborError(
      "MESSAGE_NOT_FOUND",
      `[arbor] [ai-sdk] No stored answer "${message.id}" to continue`,
    );
  const incoming = new Map<string, SessionMessagePart>();
  for (const part of message.parts)
    if (typeof part.toolCallId === "string")
      incoming.set(part.toolCallId, part);
  const parts = stored.parts.map((part) => {
    const update =
      typeof part.toolCallId === "string"
        ? incoming.get(part.toolCallId)
        : undefined;
    if (
      update &&
      update.type === part.type &&
      PENDING.has(String(part.state)) &&
      SETTLED.has(String(update.state))
    )
      return update;
    return part;
  });
  return { kind: "continue", continued: { ...stored, parts } };
}

/** Tool states that wait for the client. */
const PENDING = new Set(["input-available", "approval-requested"]);
/** Tool states the client may move a pending call to. */
const SETTLED = new Set([
  "output-available",
  "output-error",
  "approval-responded",
  "output-denied",
]);

async function requireMessage(
  session: Session,
  id: string,
): Promise<SessionMessage> {
  const message = await session.getMessage(id);
  if (!message)
    throw new ArborError(
      "MESSAGE_NOT_FOUND",
      `[arbor] [ai-sdk] No message "${id}" in this chat`,
    );
  return message;
}

function objectOr(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function nowIso(): string {
  return new Date().toISOString();
}

function invalid(detail: string): ArborTypeError {
  return new ArborTypeError("INVALID_ARGUMENT", `[arbor] [ai-sdk] ${detail}`);
}
