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
export {
  Session,
  type AppendMessageResult,
  type SessionOptions,
  type SearchOptions,
} from "./facade/session.js";
export type {
  SessionProvider,
  StoredMessageRecord,
} from "./contracts/provider.js";
/** A whole store: what the SessionManager, erase, prune and embeddings need (docs/custom-providers.md). */
export {
  isBackend,
  type Backend,
  type BackendErase,
  type BackendSearchIndex,
  type SearchIndexChange,
  type SearchIndexSettings,
} from "./contracts/backend.js";
export { type BackendEmbeddings } from "./contracts/embedding-store.js";
export type {
  BackendStreams,
  StoredStreamRead,
} from "./contracts/chat-streams.js";
export type {
  EmbeddingCounts,
  EmbeddingStore,
  EmbeddedKind,
  NearestQuery,
  QueueItem,
  VectorHit,
} from "./contracts/embedding-store.js";
export type { StoreEraseResult, StoreEraseTarget } from "./contracts/erase.js";
export type { SqlProvider } from "./contracts/sql-provider.js";
export type {
  CompactAfterOptions,
  CompactCallOptions,
  CompactContext,
  CompactionMeta,
  ContextBlock,
  HistoryRowStat,
  MatchMode,
  PrefixMode,
  MaybePromise,
  RecentHistoryResult,
  SearchResult,
  SessionMessage,
  SessionMessagePart,
  MessageTokenCounts,
  SessionTokenCounter,
  SessionTokenCounterInput,
  StoredCompaction,
  TextSearchOptions,
} from "./contracts/types.js";
export type {
  ContextConfig,
  SessionContextOptions,
  SystemPromptReading,
} from "./context/types.js";
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
  type SearchProviderOptions,
  type SkillProvider,
  type WritableContextProvider,
} from "./contracts/context-provider.js";
export type { ArborTool, ArborToolSet } from "./context/tools/index.js";
export type {
  SessionErrorEvent,
  SessionEvent,
  SessionEventListener,
  SessionStatusEvent,
} from "./facade/status.js";
/** Embeddings and recall: `withEmbeddings()`, search modes and explained results (docs/search.md). */
export type {
  ContextTurn,
  EmbedFunction,
  Embedder,
  EmbeddingModelLike,
  EmbeddingOptions,
  EmbeddingStatusEvent,
  HitContext,
  RecallResult,
  SearchHit,
  SearchHitPlace,
  SearchMode,
  SearchScope,
  SessionSearchOptions,
} from "./embeddings/types.js";
/** The change feed of `session.watch()`, `manager.watch()` and `SessionProvider.watchChanges()` (docs/behavior/events-and-audit.md). */
export type {
  ChangeEvent,
  ChangeFeedSource,
  ChangeListener,
  ChangePosition,
  ChangeType,
  ChangeWatchScope,
  Unsubscribe,
  WatchChangesOptions,
} from "./contracts/changes.js";
/** A bounded in-process change log with resumable positions, for a custom provider's `watchChanges` (docs/custom-providers.md). */
export { InProcessChangeLog } from "./state/change-feed.js";
export {
  SessionManager,
  type AppendToExistingOptions,
  type CreateContextBlockOptions,
  type CreateSessionOptions,
  type ForkOptions,
  type ImportSessionOptions,
  type ListSessionsOptions,
  type ManagerBackend,
  type ManagerContextOptions,
  type ManagerSearchOptions,
  type ProviderOrFactory,
  type SessionManagerOptions,
} from "./manager/session-manager.js";
/** The model's `session_search` tool: its input and options (docs/search.md#what-the-model-sees). */
export type {
  SearchToolOptions,
  SessionSearchInput,
} from "./manager/session-search-tool.js";
/** The import index of `SessionManager.importIndex()` (docs/formats.md, re-imports). */
export {
  ImportIndex,
  IMPORT_KEY_METADATA,
  IMPORTED_AT_METADATA,
} from "./manager/import-index.js";
export { searchableTerms } from "./text/search-terms.js";
export { METADATA_LIMITS } from "./manager/metadata-limits.js";
/** `SessionManager.erase()` and `prune()`: targets, options and receipts (docs/behavior/erase-and-retention.md). */
export type {
  AuditEraseTarget,
  EraseCounts,
  EraseReceipt,
  EraseTarget,
  PruneCutoff,
  PruneOptions,
  PruneReceipt,
  PrunedSession,
} from "./contracts/erase.js";
export type {
  CreatedBlockRows,
  ListPosition,
  MessageRef,
  RegistryListOptions,
  RegistrySearchOptions,
  SessionInfoPatch,
  SessionListing,
  SessionRegistry,
  SummaryHit,
} from "./contracts/registry.js";
export { SqlSessionRegistry } from "../backends/sql/sql-registry.js";
export {
  InMemorySessionRegistry,
  /** @deprecated The old name of `InMemorySessionRegistry` (one name per backend: `InMemory*`). */
  InMemorySessionRegistry as MemorySessionRegistry,
} from "../backends/memory/memory-registry.js";
export type {
  CreatedBlockDefinition,
  SessionInfo,
  SessionSnapshot,
} from "./contracts/session-info.js";
export type { ImportRecords, ReattachRecord } from "./contracts/provider.js";
/** A path row as streamed history plans its windows (`getPathIds`). */
export type { PathEntry, StoreTokenEstimate } from "./contracts/provider.js";
/** What a provider can do beyond the required contract, declared once by its optional members (docs/custom-providers.md). */
export {
  hasCapability,
  PROVIDER_CAPABILITIES,
  providerCapabilities,
  type ProviderCapability,
  type ProviderWith,
} from "./contracts/provider-capabilities.js";
/** The one write primitive of the provider contract (`writeMessages`) and the seed-shaped provider it replaces. */
export type {
  MessageWrite,
  SeedSessionProvider,
  WriteMessagesOptions,
  WriteMessagesResult,
} from "./contracts/provider.js";
/** Options of `session.history()` / `historyBatches()` and their defaults (docs/behavior/history.md). */
export {
  DEFAULT_HISTORY_BATCH_BYTES,
  DEFAULT_HISTORY_BATCH_SIZE,
  type HistoryStreamOptions,
} from "./facade/session-history.js";
/** Options of `session.importMessage()` and the outcome of `upsertMessage()` (docs/behavior/messages-and-tree.md). */
export type {
  ImportMessageOptions,
  UpsertOutcome,
} from "./facade/session-import.js";
export { InMemoryAuditSink } from "../backends/memory/memory-audit-sink.js";
export {
  SqlAuditSink,
  /** @deprecated The old name of `SqlAuditSink`: it writes to any `sql` store, not only SQLite files. */
  SqlAuditSink as SqliteAuditSink,
} from "../backends/sql/sql-audit-sink.js";
export {
  type AuditEvent,
  type AuditOptions,
  type AuditSink,
  type RecordedContext,
} from "./contracts/audit.js";
export { AgentSessionProvider } from "../backends/sql/index.js";
export { AgentContextProvider } from "../backends/sql/sql-context-provider.js";
export { AgentSearchProvider } from "../backends/sql/sql-search-provider.js";
export {
  R2SkillProvider,
  type R2BucketLike,
  type R2ListOptionsLike,
  type R2ObjectLike,
  type R2ObjectsLike,
  type R2SkillProviderOptions,
} from "./context/r2-skill-provider.js";
/**
 * The seed-named PostgreSQL classes, the same classes as `arbor-memory/postgres`'s, kept here so
 * code written for the Agents SDK ports by changing an import. A Worker that does not import them
 * does not carry them (`sideEffects: false`). Imported from their own modules, not the backend's
 * index, so that Node loads neither the registry nor the backend object with this entry. The rest
 * of PostgreSQL, `postgresBackend()` first, is in `arbor-memory/postgres`.
 */
export {
  PostgresSessionProvider,
  type PostgresSessionProviderOptions,
} from "../backends/postgres/postgres-session-provider.js";
export { PostgresContextProvider } from "../backends/postgres/postgres-context-provider.js";
export { PostgresSearchProvider } from "../backends/postgres/postgres-search-provider.js";
export {
  applyPostgresSchema,
  type PostgresSchemaOptions,
} from "../backends/postgres/postgres-schema.js";
export type {
  PgClientLike,
  PostgresConnection,
  PostgresJsLike,
  PostgresJsTransactionLike,
  PostgresClient,
} from "../backends/postgres/postgres-client.js";
/** The built-in backends of this entry, for `SessionManager.create(backend)` (docs/custom-providers.md). */
export { sqlBackend } from "../backends/sql/sql-backend.js";
export { memoryBackend } from "../backends/memory/memory-backend.js";
export {
  InMemorySessionProvider,
  InMemoryContextProvider,
  type InMemorySessionProviderOptions,
  type InMemoryMessageSnapshot,
  type InMemorySessionProviderSnapshot,
  type InMemorySessionSnapshot,
  type StoredMessageJson,
} from "../backends/memory/index.js";
export { InMemoryBlockHistory } from "../backends/memory/memory-block-history.js";
export {
  applyCompactions,
  isCompactionMessage,
  COMPACTION_PREFIX,
} from "./tree/apply-compactions.js";
export { assertCompactionArguments } from "./tree/compaction-args.js";
/**
 * How a stored file part names its attachment (`arbor-attachment:sha256:<hex>`): a read returns
 * the original `data:` URL, and this reference only when the stored bytes are missing
 * (docs/behavior/storage.md#attachments).
 */
export { ATTACHMENT_URL_PREFIX } from "./messages/attachments.js";
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
