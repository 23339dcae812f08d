/**
 * Persistent, tree-structured conversation memory. Loads in any
 * JavaScript runtime, Cloudflare workerd included: nothing here imports Node-only modules.
 *
 * @example
 * ```ts
 * import { Session, InMemorySessionProvider } from "arbor-memory/session";
 *
 * const session = Session.create(new InMemorySessionProvider()).withContext("memory");
 * await session.appendMessage({ id: "u1", role: "user", parts: [{ type: "text", text: "Hello" }] });
 * console.log(await session.getHistory(), await session.freezeSystemPrompt());
 * ```
 *
 * @module arbor-memory/session
 */
export { Session, type SessionOptions, type SearchOptions } from "./session.js";
export type {
  SessionProvider,
  StoredMessageRecord,
} from "./contracts/provider.js";
export type { SqlProvider } from "./contracts/sql-provider.js";
export type {
  CompactAfterOptions,
  CompactContext,
  CompactionMeta,
  ContextBlock,
  HistoryRowStat,
  MaybePromise,
  RecentHistoryResult,
  SearchResult,
  SessionMessage,
  SessionMessagePart,
  SessionTokenCounter,
  SessionTokenCounterInput,
  StoredCompaction,
} from "./contracts/types.js";
export type { ContextConfig, SessionContextOptions } from "./context/types.js";
export type {
  BlockHistoryStore,
  BlockVersion,
} from "./contracts/block-history.js";
export {
  isSearchProvider,
  isSkillProvider,
  isWritableProvider,
  type ContextProvider,
  type SearchProvider,
  type SkillProvider,
  type WritableContextProvider,
} from "./contracts/context-provider.js";
export type { ArborTool, ArborToolSet } from "./context/tools/index.js";
export type {
  SessionErrorEvent,
  SessionEvent,
  SessionEventListener,
  SessionStatusEvent,
} from "./status.js";
export {
  SessionManager,
  type CreateSessionOptions,
  type ImportSessionOptions,
  type ListSessionsOptions,
  type ManagerBackend,
  type ManagerContextOptions,
  type ManagerSearchOptions,
  type ProviderOrFactory,
  type SessionManagerOptions,
} from "./manager/session-manager.js";
export type {
  ListPosition,
  RegistryListOptions,
  RegistrySearchOptions,
  SessionInfoPatch,
  SessionRegistry,
} from "./contracts/registry.js";
export { SqlSessionRegistry } from "./providers/sql/sql-registry.js";
export { MemorySessionRegistry } from "./providers/memory/memory-registry.js";
export { PostgresSessionRegistry } from "./providers/postgres/postgres-registry.js";
export type { SessionInfo, SessionSnapshot } from "./contracts/session-info.js";
export type { ImportRecords } from "./contracts/provider.js";
export { InMemoryAuditSink } from "./providers/memory/memory-audit-sink.js";
export { SqliteAuditSink } from "./providers/sql/sql-audit-sink.js";
export {
  type AuditEvent,
  type AuditOptions,
  type AuditSink,
  type RecordedContext,
} from "./contracts/audit.js";
export { AgentSessionProvider } from "./providers/sql/index.js";
export { AgentContextProvider } from "./providers/sql/sql-context-provider.js";
export { AgentSearchProvider } from "./providers/sql/sql-search-provider.js";
export {
  R2SkillProvider,
  type R2BucketLike,
  type R2ListOptionsLike,
  type R2ObjectLike,
  type R2ObjectsLike,
  type R2SkillProviderOptions,
} from "./providers/r2/index.js";
export {
  PostgresSessionProvider,
  PostgresContextProvider,
  PostgresSearchProvider,
  POSTGRES_SCHEMA_SQL,
  applyPostgresSchema,
  postgresSchemaSql,
  type PostgresSchemaOptions,
  type PgClientLike,
  type PostgresConnection,
  type PostgresJsLike,
  type PostgresJsTransactionLike,
  type PostgresClient,
} from "./providers/postgres/index.js";
export {
  InMemorySessionProvider,
  InMemoryContextProvider,
  type InMemorySessionProviderOptions,
  type InMemoryMessageSnapshot,
  type InMemorySessionProviderSnapshot,
  type InMemorySessionSnapshot,
  type StoredMessageJson,
} from "./providers/memory/index.js";
export { InMemoryBlockHistory } from "./providers/memory/memory-block-history.js";
export {
  applyCompactions,
  isCompactionMessage,
  COMPACTION_PREFIX,
} from "./core/apply-compactions.js";
export { assertCompactionArguments } from "./core/compaction-args.js";
export {
  ArborError,
  ArborTypeError,
  ARBOR_ERROR_CODES,
  isArborError,
  SessionAccessError,
  type ArborErrorCode,
  type ArborErrorLike,
} from "./errors/index.js";
export type { CompactionErrorHandler } from "./contracts/types.js";
export type { CompactionFunction } from "./compaction/session-compaction.js";
export type { AnyContextProvider } from "./contracts/context-provider.js";
export type { ArborErrorOptions } from "./errors/arbor-error.js";
