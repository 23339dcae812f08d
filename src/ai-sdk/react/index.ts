/**
 * The React side of `arbor-memory/ai-sdk`: `useChatBranches()`, the "← 2/3 →" branch switcher
 * for `useChat` messages (docs/ai-sdk.md). Needs the optional peers `react` and, for `useChat`
 * itself, `@ai-sdk/react`.
 *
 * @module arbor-memory/ai-sdk/react
 */
export {
  useChatBranches,
  type BranchChat,
  type BranchPosition,
  type BranchUIMessage,
  type ChatBranches,
  type UseChatBranchesOptions,
} from "./use-chat-branches.js";
export type { ChatBranchInfo, ChatBranchView } from "../types.js";
