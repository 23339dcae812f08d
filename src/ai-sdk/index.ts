/**
 * Arbor behind the AI SDK's `useChat` (docs/ai-sdk.md): one route helper, a `Request` in and a
 * `Response` out, that keeps every branch (regenerate and edit add siblings), keeps a stopped
 * answer, and resumes an answer after a reload, in any process. Needs the optional peer `ai`
 * (5, 6 or 7), loaded with the first request. The React hook for the branch switcher is
 * `arbor-memory/ai-sdk/react`.
 *
 * @module arbor-memory/ai-sdk
 */
export { createChatHandler, type ChatHandler } from "./chat-handler.js";
export { ROOTS_METADATA } from "./branches.js";
export type {
  ChatBranchInfo,
  ChatBranchView,
  ChatHandlerOptions,
  ChatRespondContext,
  ChatScope,
  ChatStreamResult,
  ChatTurnKind,
  ChatUIMessageChunk,
} from "./types.js";
