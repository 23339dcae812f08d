// Type-only: nothing of `ai` is loaded by these; `streamText()` takes `ctx.messages` and
// `ctx.tools` as they are under strict TypeScript.
import type { ModelMessage, ToolSet } from "ai";
import type {
  Session,
  SessionManager,
  SessionMessage,
} from "../session/index.js";
import type { HistoryFilter, TruncateOptions } from "../utils/index.js";

/**
 * The AI SDK values the route helper takes and returns. The context handed to `respond` uses
 * the AI SDK's own types (`ModelMessage[]`, `ToolSet`), imported as types only; the chunks and
 * the `streamText()` result are small structural types, which the real values satisfy.
 */

/** An AI SDK UI message chunk (`start`, `text-delta`, `finish`, …). */
export interface ChatUIMessageChunk {
  readonly type: string;
  readonly [field: string]: unknown;
}

/**
 * What `streamText()` returns, as far as the helper reads it: `toUIMessageStream()`, which the
 * helper calls with `originalMessages`, `generateMessageId`, `messageMetadata` and `onError`.
 */
export interface ChatStreamResult {
  // `never`: any `streamText()` result is accepted, whatever its tools and options types.
  toUIMessageStream(options?: never): ReadableStream<unknown>;
}

/** The trigger of a `useChat` request, as the helper resolved it (docs/ai-sdk.md, "Triggers"). */
export type ChatTurnKind = "submit" | "regenerate" | "edit" | "continue";

/** What `respond` receives: the turn as Arbor assembled it, ready for `streamText()`. */
export interface ChatRespondContext {
  /** The frozen system prompt (or the fallback when the session has none). */
  system: string;
  /** The branch up to the new message as model messages (overlays, truncation, filters applied). */
  messages: ModelMessage[];
  /** The same branch as UI messages. */
  uiMessages: SessionMessage[];
  /** The session's memory tools merged with the handler's `tools`. */
  tools: ToolSet;
  /** Aborts only on a stop (the stop route, from any process); a disconnect does not. */
  abortSignal: AbortSignal;
  session: Session;
  chatId: string;
  kind: ChatTurnKind;
  /** The fields of the request body beyond useChat's own (`body` of `sendMessage`). */
  body: Record<string, unknown>;
}

/** Options of `createChatHandler()`. */
export interface ChatHandlerOptions {
  /** The manager of the store the chats live in. */
  manager: SessionManager;
  /**
   * Calls the model: typically `(ctx) => streamText({ model, system: ctx.system, messages:
   * ctx.messages, tools: ctx.tools, abortSignal: ctx.abortSignal, stopWhen: stepCountIs(5) })`.
   */
  respond(
    context: ChatRespondContext,
  ): ChatStreamResult | Promise<ChatStreamResult>;
  /** The path the routes of `fetch()` live under; default `"/api/chat"`. */
  basePath?: string;
  /** Tools of the app, merged over the session's, and used to validate incoming tool parts. */
  tools?: ToolSet;
  /** A metadata schema (zod, Standard Schema) for `validateUIMessages`. */
  metadataSchema?: unknown;
  /** Data part schemas for `validateUIMessages`. */
  dataSchemas?: Record<string, unknown>;
  /** Used when the frozen system prompt is empty. */
  fallbackSystemPrompt?: string;
  /** Read-time truncation of older messages; `false` sends them whole. */
  truncate?: TruncateOptions | false;
  /** History filters, applied in order after truncation. */
  filters?: readonly HistoryFilter[];
  /** Ids of stored messages; default `crypto.randomUUID()`. */
  generateId?: () => string;
  /**
   * Keeps the generation alive after the response is sent, on hosts that end work with the
   * request (`ctx.waitUntil` of a Worker or Durable Object). Node needs nothing.
   */
  waitUntil?: (promise: Promise<unknown>) => void;
  /** How often a reader in another process polls the store for chunks; default 100 ms. */
  pollIntervalMs?: number;
  /** A stream not written to for this long is taken to be dead and may be replaced; default 60 s. */
  staleAfterMs?: number;
  /**
   * The AI SDK module to use instead of `import("ai")`: for an app that has more than one
   * version installed (the example runs on ai 5 this way).
   */
  ai?: object;
}

/** The scope of a request: the authenticated owner whose chats it may reach. */
export interface ChatScope {
  ownerId: string;
}

/** Where a message of the active branch sits among its siblings (the "← 2/3 →" switcher). */
export interface ChatBranchInfo {
  /** Ids of the message and its siblings, oldest first. */
  siblings: string[];
  /** The message's position in `siblings` (0-based). */
  index: number;
}

/** What the messages route returns: the active branch and, per message, its siblings. */
export interface ChatBranchView {
  id: string;
  messages: SessionMessage[];
  branches: Record<string, ChatBranchInfo>;
}
