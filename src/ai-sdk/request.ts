import { ArborTypeError, type SessionMessage } from "../session/index.js";

/** A `useChat` request body, read: only the new (last) message is kept of the client's list. */
export interface ChatRequest {
  chatId: string;
  trigger: "submit-message" | "regenerate-message";
  /** The message the trigger names: the one edited, or the answer regenerated. */
  messageId: string | undefined;
  /** The client's last message (not yet validated), or `undefined` when it sent none. */
  message: unknown;
  /** Every other field of the body (`body` of `sendMessage`). */
  body: Record<string, unknown>;
}

/**
 * Reads the JSON body `useChat` posts: `{ id, messages, trigger, messageId, …body }`, or `{ id,
 * message, … }` from an app whose `prepareSendMessagesRequest` sends only the last message. The
 * client's copy of the history is never read beyond its last message.
 *
 * @throws ArborTypeError `INVALID_ARGUMENT` for a body that is not such an object.
 */
export async function readChatRequest(request: Request): Promise<ChatRequest> {
  let raw: unknown;
  try {
    raw = await request.json();
  } catch (error) {
    throw invalid("the body is not JSON", error);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw invalid("the body is not a JSON object");
  const { id, messages, message, trigger, messageId, ...body } = raw as Record<
    string,
    unknown
  >;
  if (typeof id !== "string" || id === "")
    throw invalid("`id` (the chat id) is missing");
  const resolvedTrigger = trigger ?? "submit-message";
  if (
    resolvedTrigger !== "submit-message" &&
    resolvedTrigger !== "regenerate-message"
  )
    throw invalid(
      '`trigger` is neither "submit-message" nor "regenerate-message"',
    );
  if (
    messageId !== undefined &&
    messageId !== null &&
    (typeof messageId !== "string" || messageId === "")
  )
    throw invalid("`messageId` is not a message id");
  if (messages !== undefined && !Array.isArray(messages))
    throw invalid("`messages` is not an array");
  return {
    chatId: id,
    trigger: resolvedTrigger,
    messageId: typeof messageId === "string" ? messageId : undefined,
    message: message ?? (messages as unknown[] | undefined)?.at(-1),
    body,
  };
}

/** The message as Arbor stores it, after `validateUIMessages` accepted it. */
export function asSessionMessage(message: unknown): SessionMessage {
  return message as SessionMessage;
}

// --- Internal helpers ---

function invalid(detail: string, cause?: unknown): ArborTypeError {
  return new ArborTypeError(
    "INVALID_ARGUMENT",
    `[arbor] [ai-sdk] Not a useChat request: ${detail}`,
    cause === undefined ? undefined : { cause },
  );
}
