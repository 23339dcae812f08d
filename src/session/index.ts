/**
 * @module `arbor/session`: persistent, tree-structured conversation memory. Loads in any
 * JavaScript runtime, Cloudflare workerd included: nothing here imports Node-only modules.
 *
 * @example
 * ```ts
 * import { Session, InMemorySessionProvider } from "arbor/session";
 *
 * const session = Session.create(new InMemorySessionProvider());
 * await session.appendMessage({ id: "u1", role: "user", parts: [{ type: "text", text: "Hello" }] });
 * console.log(await session.getHistory());
 * ```
 */
export { Session, type SessionOptions, type SearchOptions } from "./session.js";
export type { SessionProvider, StoredMessageRecord } from "./provider.js";
export type { SqlProvider } from "./sql-provider.js";
export type {
  CompactionMeta,
  HistoryRowStat,
  MaybePromise,
  RecentHistoryResult,
  SearchResult,
  SessionMessage,
  SessionMessagePart,
  StoredCompaction,
} from "./types.js";
export { AgentSessionProvider } from "./providers/agent/index.js";
export {
  InMemorySessionProvider,
  InMemoryContextProvider,
  type InMemorySessionProviderOptions,
} from "./providers/memory/index.js";
export {
  applyCompactions,
  isCompactionMessage,
  COMPACTION_PREFIX,
} from "./core/apply-compactions.js";
export {
  ArborError,
  ArborTypeError,
  ARBOR_ERROR_CODES,
  isArborError,
  SessionAccessError,
  type ArborErrorCode,
  type ArborErrorLike,
} from "./errors/index.js";
