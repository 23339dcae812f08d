/**
 * Sessions by id over one store, with the call shapes of the `agents/sessions` module of the
 * Cloudflare Agents SDK 0.32: `new Sessions(store)`, `sessions.session(id)` handles,
 * `appendMessage` → `{ inserted, message }`, streamed history, compaction, search, a change feed
 * and `mirror()`. A thin adapter over `arbor-memory/session`, so it runs on every backend; loads
 * in workerd. Moving from the package: docs/sessions-032.md.
 *
 * @example
 * ```ts
 * import { Sessions } from "arbor-memory/sessions";
 * import { InMemorySessionProvider } from "arbor-memory/session";
 *
 * const sessions = new Sessions(new InMemorySessionProvider());
 * const stop = sessions.subscribe((event) => console.log(event.type));
 * await sessions.session().appendMessage({ id: "u1", role: "user", parts: [{ type: "text", text: "Hi" }] });
 * stop();
 * ```
 *
 * @module arbor-memory/sessions
 */
export { Sessions } from "./sessions.js";
export {
  SessionHandle,
  /** The handle type by the name the package gives it: `sessions.session(id)` returns one. */
  type SessionHandle as Session,
} from "./session-handle.js";
export {
  COMPACTION_PREFIX,
  createCompactFunction,
  isCompactionMessage,
} from "./compaction.js";
export type {
  AppendOptions,
  AppendResult,
  CompactionFunction,
  CompactOptions,
  CompactResult,
  HistoryBatchReadOptions,
  HistoryReadOptions,
  SessionChangeEvent,
  SessionChangeListener,
  SessionMirrorOptions,
  SessionRowStat,
  SessionsOptions,
  SessionsStore,
  WriteOptions,
} from "./types.js";
export type {
  RecentHistoryResult,
  SearchResult,
  SessionMessage,
  SessionMessagePart,
  StoredCompaction,
} from "../session/index.js";
