import { assertMetadata } from "./metadata-limits.js";
import type { CompactionFunction } from "../compaction/session-compaction.js";
import type { AuditOptions, AuditSink } from "../contracts/audit.js";
import type { WritableContextProvider } from "../contracts/context-provider.js";
import type {
  Backend,
  SearchIndexChange,
  SearchIndexSettings,
} from "../contracts/backend.js";
import type { SqlProvider } from "../contracts/sql-provider.js";
import type { SessionListing } from "../contracts/registry.js";
import type {
  SessionInfo,
  SessionSnapshot,
} from "../contracts/session-info.js";
import type {
  CompactAfterOptions,
  CompactionErrorHandler,
  CompactionMeta,
  ContextBlock,
  SessionMessage,
  StoredCompaction,
} from "../contracts/types.js";
import type {
  EraseReceipt,
  EraseTarget,
  PruneOptions,
  PruneReceipt,
} from "../contracts/erase.js";
import type {
  Embedder,
  EmbeddingOptions,
  SearchHit,
} from "../embeddings/types.js";
import type { ArborTool } from "../context/tools/index.js";
import {
  sessionSeam,
  type AppendMessageResult,
  type Session,
} from "../facade/session.js";
import type { ManagerSeam } from "../facade/session-seam.js";
import type { ManagedSession } from "./session-cache.js";
import type {
  ChangeListener,
  ChangePosition,
  Unsubscribe,
} from "../contracts/changes.js";
import {
  invalidArgument,
  isArborError,
  SessionAccessError,
} from "../errors/index.js";
import { configureSearchIndex, searchIndexSettings } from "./search-index.js";
import {
  inMemoryManagerBackend,
  managerBackendFor,
  type ManagerBackend,
  type ManagerHost,
} from "./manager-backend.js";
import type {
  AppendToExistingOptions,
  CreateSessionOptions,
  ForkOptions,
  ImportSessionOptions,
  ListSessionsOptions,
  ManagerContextOptions,
  ManagerSearchOptions,
  ProviderOrFactory,
  SessionManagerOptions,
} from "./manager-options.js";
import { historyProvider } from "./manager-search.js";
import type {
  SearchToolOptions,
  SessionSearchInput,
} from "./session-search-tool.js";
import { SessionCache } from "./session-cache.js";
import { ManagerMessages } from "./manager-messages.js";
import { ManagerRecall } from "./manager-recall.js";
import { ManagerRetention } from "./manager-retention.js";
import {
  addUsage,
  assertText,
  listPage,
  newSessionInfo,
  requireRow,
  sessionExists,
} from "./session-rows.js";
import { ImportIndex } from "./import-index.js";
import { listDetailedPage } from "./session-listing.js";
import { SessionSettings } from "./session-settings.js";
import {
  createContextBlock,
  createdBlockKeys,
  deleteContextBlock,
  storedBlockConfigs,
  type CreateContextBlockOptions,
} from "./created-blocks.js";
import * as tenancy from "./tenancy.js";

export type { ManagerBackend } from "./manager-backend.js";
export type { CreateContextBlockOptions } from "./created-blocks.js";
export type * from "./manager-options.js";

/** Set by SessionManager's static block, the one place with access to its state (`managerSeam`). */
let openManagerSeam: (manager: SessionManager) => ManagerSeam;

/**
 * Many named sessions in one store (docs/behavior/manager.md): a registry with usage and cost, lifecycle, forks,
 * compact-and-split, cross-session search, tenant binding and whole-session snapshots, on every
 * backend. Every method that touches storage returns a Promise.
 *
 * @example
 * ```ts
 * import { SessionManager } from "arbor-memory/session";
 * import { openSqlite } from "arbor-memory/sqlite";
 *
 * const manager = SessionManager.create(openSqlite("agent.db"))
 *   .withContext("memory", { maxTokens: 1000 })
 *   .withCachedPrompt()
 *   .withSearchableHistory("history");
 * const info = await manager.create("Trip planning", { ownerId: "user-42" });
 * await manager.append(info.id, { id: "u1", role: "user", parts: [{ type: "text", text: "Hi" }] });
 * const session = await manager.resume(info.id, "user-42");
 * ```
 */
export class SessionManager {
  // A facade over parts by concept, each its own class: the registry and lifecycle here, the
  // per-session message calls (`ManagerMessages`), erase and prune (`ManagerRetention`),
  // embeddings and search (`ManagerRecall`), the builder settings (`SessionSettings`) and the
  // open sessions (`SessionCache`).
  private readonly settings = new SessionSettings();
  private readonly sessions: SessionCache;
  /** What lineage, snapshots, erase, prune and recall use of this manager. */
  private readonly host: ManagerHost;
  private readonly messages: ManagerMessages;
  private readonly retention: ManagerRetention;
  private readonly recall: ManagerRecall;

  static {
    // The one way into a manager from the layers above it (session-seam.ts).
    openManagerSeam = (manager) => ({
      streams: manager.host.backend?.streams,
    });
  }

  constructor(
    private readonly backend: ManagerBackend,
    private readonly options: SessionManagerOptions = {},
  ) {
    this.sessions = new SessionCache(options.maxCachedSessions, (id) =>
      this.openConfigured(id),
    );
    this.host = {
      registry: backend.registry,
      getSession: (id) => this.getSession(id),
      managed: (id) => this.sessions.get(id),
      create: (name, createOptions) => this.create(name, createOptions),
      delete: (id) => this.delete(id),
      backend: backend.backend,
      ownedContextKeys: (id) => this.ownedContextKeys(id),
      auditSink: () => this.settings.auditSink,
      forget: (id) => this.sessions.delete(id),
    };
    this.messages = new ManagerMessages((id) => this.getSession(id));
    this.retention = new ManagerRetention(this.host);
    this.recall = new ManagerRecall(this.host, this.settings, () =>
      this.sessions.values(),
    );
  }

  /**
   * A manager over a store (docs/behavior/manager.md). Lazy: nothing is read or written until a method needs it.
   *
   * | Backend                 | `target`                                                              |
   * | ----------------------- | --------------------------------------------------------------------- |
   * | PostgreSQL              | `postgresBackend(client)` from `arbor-memory/postgres`                |
   * | SQLite (Node)           | `sqliteBackend(file)` from `arbor-memory/sqlite`, or `openSqlite(file)` |
   * | Durable Object          | `this` (its `sql` store), or `sqlBackend(this)`                       |
   * | your own store          | a `Backend` (docs/custom-providers.md)                                |
   *
   * A PostgreSQL client itself is refused with `INVALID_TARGET`: wrap it in `postgresBackend()`,
   * and apply the schema once first (`applyPostgresSchema`). For tests, `inMemory()`.
   */
  static create(
    target: SqlProvider | Backend,
    options?: SessionManagerOptions,
  ): SessionManager {
    return new SessionManager(managerBackendFor(target), options);
  }

  /** A manager whose sessions live in this process only. */
  static inMemory(options?: SessionManagerOptions): SessionManager {
    return new SessionManager(inMemoryManagerBackend(), options);
  }

  // --- Builder (applies to every session it opens) ---

  /**
   * A block for every session. Without a provider it is auto-wired per session
   * (`<label>_<sessionId>`); a provider instance is shared by all sessions; a function makes one
   * per session.
   */
  withContext(label: string, options: ManagerContextOptions = {}): this {
    this.settings.addContext(label, options);
    return this;
  }

  /** Persists each session's frozen prompt (per-session rows), or in the given provider(s). */
  withCachedPrompt(
    provider?: ProviderOrFactory<WritableContextProvider>,
  ): this {
    this.settings.setCachedPrompt(provider ?? null);
    return this;
  }

  onCompaction(compactFunction: CompactionFunction): this {
    this.settings.setCompactFunction(compactFunction);
    for (const { session } of this.sessions.values())
      session.onCompaction(compactFunction);
    return this;
  }

  compactAfter(threshold: number, options?: CompactAfterOptions): this {
    this.settings.setCompactAfter(threshold, options);
    for (const { session } of this.sessions.values())
      session.compactAfter(threshold, options);
    return this;
  }

  onCompactionError(handler: CompactionErrorHandler): this {
    this.settings.setCompactionErrorHandler(handler);
    for (const { session } of this.sessions.values())
      session.onCompactionError(handler);
    return this;
  }

  /** Records every managed session's writes to `sink` (docs/behavior/events-and-audit.md). */
  withAudit(sink: AuditSink, options: AuditOptions = {}): this {
    this.settings.setAudit(sink, options);
    return this;
  }

  /**
   * The row-size limit of every session it opens (see `Session.withRowSizeLimit()`): bytes of a
   * message's JSON above which it is shortened on write, or `false` to store messages whole.
   */
  withRowSizeLimit(limit: number | false): this {
    this.settings.setRowSizeLimit(limit);
    return this;
  }

  /** Adds to every session a read-only search block over all sessions' history (docs/behavior/manager.md). */
  withSearchableHistory(label: string): this {
    this.settings.setHistoryLabel(label);
    return this;
  }

  /**
   * Semantic recall for every session this manager opens from now on (docs/search.md): messages
   * are queued in the same write and embedded in the background; `search()`, `session_search`
   * and `withSearchableHistory()` then default to `"hybrid"`. Sessions already open get it too.
   */
  withEmbeddings(embedder: Embedder, options: EmbeddingOptions = {}): this {
    this.recall.withEmbeddings(embedder, options);
    return this;
  }

  // --- Lifecycle ---

  /**
   * Registers a new session (with a random id, or `options.id`) and returns its row. An id that
   * is taken throws `SESSION_EXISTS`, also when another process takes it at the same moment.
   */
  async create(
    name: string,
    options: CreateSessionOptions = {},
  ): Promise<SessionInfo> {
    const info = newSessionInfo(name, options);
    if (options.metadata !== undefined)
      assertMetadata(options.metadata, "create()");
    const registry = this.backend.registry;
    if (options.id !== undefined && (await registry.get(info.id)))
      throw sessionExists(info.id);
    // The row, owner and metadata in one atomic write where the registry can: a failure leaves
    // no session, and no reader sees one with part of its metadata.
    const config = tenancy.tenancyConfig(options.ownerId, options.metadata);
    const atomic =
      registry.insertWithConfig !== undefined && Object.keys(config).length > 0;
    try {
      if (atomic) await registry.insertWithConfig!(info, config);
      else await registry.insert(info);
    } catch (error) {
      // The key's own error differs per driver; the row now being there is what it means.
      if (options.id !== undefined && (await registry.get(info.id)))
        throw sessionExists(info.id);
      throw error;
    }
    if (!atomic)
      await tenancy.writeTenancy(
        registry,
        info.id,
        options.ownerId,
        options.metadata,
      );
    return info;
  }

  /** The session's row, or `null`. */
  async get(id: string): Promise<SessionInfo | null> {
    return this.backend.registry.get(id);
  }

  /** Sessions, most recently updated first (then newer creation, then id); see `listPage()`. */
  async list(options: ListSessionsOptions = {}): Promise<SessionInfo[]> {
    return (await this.listPage(options)).sessions;
  }

  /** One page of `list()` and the cursor of the next (`null` after the last). */
  async listPage(
    options: ListSessionsOptions = {},
  ): Promise<{ sessions: SessionInfo[]; nextCursor: string | null }> {
    return listPage(this.backend.registry, options);
  }

  /**
   * `listPage()` with each session's owner, metadata, stored message count (every branch) and the
   * number of sessions it started (`childCount`), as `GET /v1/sessions` shows them: one query per
   * page on the built-in backends (`SessionRegistry.listDetailed`), whatever its length.
   */
  async listDetailedPage(options: ListSessionsOptions = {}): Promise<{
    sessions: Required<SessionListing>[];
    nextCursor: string | null;
  }> {
    return listDetailedPage(this.backend.registry, options, (id) =>
      this.getSession(id).countMessages(),
    );
  }

  async rename(id: string, name: string): Promise<void> {
    assertText(name, "rename() needs the new name");
    await requireRow(this.backend.registry, id);
    await this.backend.registry.update(id, {
      name,
      updated_at: new Date().toISOString(),
    });
  }

  /**
   * Deletes the session and every row it owns: messages, overlays, index rows, auto-wired block
   * and prompt rows, config and block history. `false` for an unknown id.
   */
  async delete(id: string): Promise<boolean> {
    this.sessions.delete(id);
    return this.backend.registry.deleteSession(
      id,
      await this.ownedContextKeys(id),
    );
  }

  /**
   * Creates a writable context block in one session, stored with it: its definition (label,
   * description, maxTokens) is a config entry of the session, so the block is there whenever the
   * session is opened again, in the system prompt and the tools, in this process or another
   * (docs/decisions/2026-12-07-created-blocks-in-session-config.md). `content`, when given, is
   * its first version. The label is 1 to 64 letters, digits, `-` or `_`; one the session already
   * has throws `BLOCK_EXISTS`. Nothing is written when a check fails. Like `addContext()`, the
   * block reaches a frozen prompt at `refreshSystemPrompt()`.
   */
  async createContextBlock(
    id: string,
    label: string,
    options: CreateContextBlockOptions = {},
  ): Promise<ContextBlock> {
    return createContextBlock(
      this.backend.registry,
      this.sessions.get(id),
      id,
      label,
      options,
    );
  }

  /**
   * Deletes a block created in the session (`createContextBlock()`): its definition, its content
   * and its version history, in one atomic write, announced on the change feed as a `block`
   * change. A block the application declares (`withContext()`) throws `BLOCK_READONLY`, a label
   * the session does not have `BLOCK_NOT_FOUND`, an unknown session `SESSION_NOT_FOUND`. Like
   * any block write, it leaves a frozen prompt until `refreshSystemPrompt()`.
   */
  async deleteContextBlock(id: string, label: string): Promise<void> {
    return deleteContextBlock(
      this.backend.registry,
      this.sessions.get(id),
      id,
      label,
    );
  }

  /** The Session for an id, configured with the manager's builder settings. Sync; no row needed. */
  getSession(id: string): Session {
    return this.sessions.get(id).session;
  }

  // --- Messages and overlays of one session (the Session methods of the same purpose) ---

  async append(
    id: string,
    message: SessionMessage,
    parentId?: string | null,
  ): Promise<string> {
    return this.messages.append(id, message, parentId);
  }

  /**
   * `appendMessage()` on a session that exists: a session without a registry row (never
   * created, or deleted) throws `SessionAccessError` (`SESSION_NOT_FOUND`) and nothing is written,
   * where `append()` would register it. On the built-in backends the insert itself checks the
   * registry, so this costs no read more than an append; over another registry it reads the row
   * first. Ownership is not checked here: `resume(id, ownerId)` does that.
   *
   * With `parentMustExist`, a `parentId` that is not in the session throws `ArborError`
   * (`MESSAGE_NOT_FOUND`) and nothing is written, where an append would store the message as a
   * root. On PostgreSQL the insert checks it too (one statement); on other stores the parent is
   * read first, under the session's append lock. A missing session is `SESSION_NOT_FOUND` whatever
   * the parent.
   */
  async appendToExisting(
    id: string,
    message: SessionMessage,
    parentId?: string | null,
    options: AppendToExistingOptions = {},
  ): Promise<AppendMessageResult> {
    const { session, seam } = this.sessions.get(id);
    const requireParent = options.parentMustExist === true;
    if (
      this.backend.backend?.registry === this.backend.registry &&
      (await seam.insertChecksRegistry())
    ) {
      const result = await seam
        .appendChecked(message, parentId, {
          requireRegistered: true,
          requireParent,
        })
        .catch(async (error: unknown) => {
          // A store whose insert checks the registry but not the parent read the parent first:
          // a missing session must still read as such.
          if (
            isArborError(error) &&
            error.code === "MESSAGE_NOT_FOUND" &&
            !(await seam.insertChecksParent()) &&
            !(await this.get(id))
          )
            throw new SessionAccessError("SESSION_NOT_FOUND", id);
          throw error;
        });
      if (result) return result;
    } else if (await this.get(id)) {
      if (!requireParent) return session.appendMessage(message, parentId);
      const result = await seam.appendChecked(message, parentId, {
        requireParent,
      });
      if (result) return result;
    }
    throw new SessionAccessError("SESSION_NOT_FOUND", id);
  }

  /** Updates the message if it exists in the session (parent unchanged), else appends it. */
  async upsert(
    id: string,
    message: SessionMessage,
    parentId?: string | null,
  ): Promise<string> {
    return this.messages.upsert(id, message, parentId);
  }

  /**
   * Appends in order, each message under the previous one. The first goes under `parentId`, or
   * under the latest leaf when it is omitted (`null` makes it a root). Returns the last id.
   */
  async appendAll(
    id: string,
    messages: readonly SessionMessage[],
    parentId?: string | null,
  ): Promise<string | null> {
    return this.messages.appendAll(id, messages, parentId);
  }

  async getHistory(
    id: string,
    leafId?: string | null,
  ): Promise<SessionMessage[]> {
    return this.messages.getHistory(id, leafId);
  }

  /** The length of the active path (not the total number of rows). */
  async getMessageCount(id: string): Promise<number> {
    return this.messages.getMessageCount(id);
  }

  async clearMessages(id: string): Promise<void> {
    await this.messages.clearMessages(id);
  }

  async deleteMessages(
    id: string,
    messageIds: readonly string[],
  ): Promise<void> {
    await this.messages.deleteMessages(id, messageIds);
  }

  async getBranches(id: string, messageId: string): Promise<SessionMessage[]> {
    return this.messages.getBranches(id, messageId);
  }

  async addCompaction(
    id: string,
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): Promise<StoredCompaction> {
    return this.messages.addCompaction(
      id,
      summary,
      fromMessageId,
      toMessageId,
      meta,
    );
  }

  async getCompactions(id: string): Promise<StoredCompaction[]> {
    return this.messages.getCompactions(id);
  }

  async removeCompaction(id: string, compactionId: string): Promise<boolean> {
    return this.messages.removeCompaction(id, compactionId);
  }

  // --- Fork, compaction, usage ---

  /**
   * A new session holding the source's raw path root → `atMessageId` and the overlays on it, so
   * its history equals the source's history at that message while the originals are kept.
   */
  async fork(
    id: string,
    atMessageId: string,
    newName: string,
    options: ForkOptions = {},
  ): Promise<SessionInfo> {
    const { forkSession } = await occasional();
    return forkSession(this.host, id, atMessageId, newName, options);
  }

  /**
   * Ends a session with `end_reason = "compaction"` and starts a child session whose first
   * message carries the summary. No LLM call; the old messages stay.
   */
  async compactAndSplit(
    id: string,
    summary: string,
    newName?: string,
  ): Promise<SessionInfo> {
    const { compactAndSplit } = await occasional();
    return compactAndSplit(this.host, id, summary, newName);
  }

  /** Adds token usage and cost to the session's counters. */
  async addUsage(
    id: string,
    inputTokens: number,
    outputTokens: number,
    cost: number,
  ): Promise<void> {
    await addUsage(this.backend.registry, id, inputTokens, outputTokens, cost);
  }

  // --- Erase and retention ---

  /**
   * Removes one session (`{ sessionId }`), every session of a tenant (`{ ownerId }`) or some
   * messages (`{ sessionId, messageIds }`) with everything derived from them on this backend:
   * search index rows, overlays whose range is gone or that summarized an erased message, block
   * history written from the session (for messages: by their tool calls), attachments left
   * without a reference, audit events (when the sink has `erase`), config and context rows, the
   * registry row with its usage. Children of erased messages move up as on delete. Each session
   * is erased atomically, under its append lock, and no compaction of this process that read an
   * erased message stores its summary afterwards. Unknown ids count zero.
   *
   * @returns What was removed, counted per kind, with the time.
   */
  async erase(target: EraseTarget): Promise<EraseReceipt> {
    return this.retention.erase(target);
  }

  /**
   * Deletes whole sessions last updated before `olderThan` and beyond the newest `keepLatest`
   * (either alone suffices), and branches off the active path whose messages are all older than
   * `abandonedBranchesOlderThan`, each as `erase()` removes it; every active path stays whole.
   * `ownerId` limits it to one tenant; `dryRun` only counts and writes nothing.
   *
   * @returns What was removed (or would be), counted per kind, with the sessions and branches.
   */
  async prune(options: PruneOptions = {}): Promise<PruneReceipt> {
    return this.retention.prune(options);
  }

  // --- Embeddings, search and tools ---

  /** Waits until every queued message of the store is embedded (tests, scripts). */
  async flushEmbeddings(): Promise<void> {
    await this.recall.flushEmbeddings();
  }

  /**
   * Turns embeddings off for the whole store (docs/search.md): stops the background embedding
   * of this process over the store, drops the embedding queue, the vectors and the triggers that
   * queue writes (on PostgreSQL also the function `arbor_embedding_hook()`), and detaches
   * embeddings from this manager and the sessions it holds open. Writes queue nothing afterwards;
   * a later `withEmbeddings()` recreates everything and embeds every message again, and so does
   * the next write or search of another manager or session of this process that still has
   * `withEmbeddings()`.
   *
   * @returns How many vectors and queued items were removed.
   * @throws ArborError `NOT_SUPPORTED` when the store has no embeddings (a custom backend without `embeddings`).
   */
  async removeEmbeddings(): Promise<{ vectors: number; queued: number }> {
    return this.recall.removeEmbeddings();
  }

  /**
   * What the store's text index holds beyond text and tool-call inputs
   * (docs/behavior/search.md#tool-outputs): `{ toolOutputs: false }` until configured.
   *
   * @throws ArborError `NOT_SUPPORTED` when the store has no search-index settings (a custom backend without `searchIndex`).
   */
  async searchIndexSettings(): Promise<SearchIndexSettings> {
    return searchIndexSettings(this.host);
  }

  /**
   * Makes tool outputs searchable (`{ toolOutputs: true }`, the first 4 KB of each call's output
   * or error text) or not again (`false`), for the whole store and every process over it: the
   * setting is kept in the store. A change re-indexes every message that may hold a tool call,
   * in one atomic write (on PostgreSQL writes wait for it); hits keep `content` without outputs.
   *
   * @returns The settings now in force, whether they changed and how many messages were re-indexed.
   * @throws TypeError `INVALID_ARGUMENT` for anything but `{ toolOutputs: boolean }`.
   * @throws ArborError `NOT_SUPPORTED` when the store has no search-index settings.
   */
  async configureSearchIndex(
    settings: SearchIndexSettings,
  ): Promise<SearchIndexChange> {
    return configureSearchIndex(this.host, settings);
  }

  /**
   * Searches the registered sessions: by words in `"text"` mode (the default without
   * embeddings), by meaning in `"semantic"`, both fused in `"hybrid"` (the default with them).
   * A time named in the query ranks the hits inside it first (`now`, `timeZone`); `since` and
   * `until` filter. Results carry `sessionId`, `sessionName` and `createdAt`, with `context`
   * their neighbouring turns; explained results (any mode given, or embeddings) also `score`,
   * `matched`, `snippet` and `onActiveBranch`.
   */
  async search(
    query: string,
    options: ManagerSearchOptions = {},
  ): Promise<SearchHit[]> {
    return this.recall.search(query, options);
  }

  /**
   * `{ session_search }`: the model searches past conversations across all sessions, as
   * `search()` does, and reads each hit with its session, time and neighbouring turns.
   * `timeZone` is the zone the model's dates mean (default `"UTC"`).
   */
  async tools(options: SearchToolOptions = {}): Promise<{
    session_search: ArborTool<SessionSearchInput>;
  }> {
    const { sessionSearchTool } = await import("./session-search-tool.js");
    return {
      session_search: sessionSearchTool((q, o) => this.search(q, o), options),
    };
  }

  // --- Change feed ---

  /**
   * Calls `listener` once per committed write to any session of this store, in commit order,
   * including writes by other processes; returns the function that stops it
   * (docs/behavior/events-and-audit.md, "Change feed"). With `after` (an earlier event's
   * `cursor`) it first delivers every change committed after that event; a position older than
   * the change log keeps gets one `reset` event instead (re-read what you track). `onStart`
   * receives the position the watch starts after, to resume from before any event arrived.
   */
  watch(
    listener: ChangeListener,
    options: {
      after?: ChangePosition;
      onStart?: (position: string) => void;
    } = {},
  ): Unsubscribe {
    const changes = this.backend.backend?.changes;
    if (changes) {
      if (typeof listener !== "function") {
        throw invalidArgument("watch() needs a listener function");
      }
      return changes.watch(listener, {
        sessionId: null,
        after: options.after,
        onStart: options.onStart,
      });
    }
    return sessionSeam(this.backend.openSession("")).watchStore(
      listener,
      options,
    );
  }

  // --- Tenant binding and metadata ---

  /** Binds a session to an owner. Rebinding to another owner needs `force`. */
  async setOwner(
    id: string,
    ownerId: string,
    options: { force?: boolean } = {},
  ): Promise<void> {
    await tenancy.setOwner(this.backend.registry, id, ownerId, options);
  }

  async getOwner(id: string): Promise<string | null> {
    return tenancy.getOwner(this.backend.registry, id);
  }

  /**
   * The Session, if it exists and belongs to `ownerId`. Otherwise `SessionAccessError` with the
   * same message whether missing or foreign, so existence does not leak.
   */
  async resume(id: string, ownerId: string): Promise<Session> {
    await tenancy.assertAccessible(this.backend.registry, id, ownerId);
    return this.getSession(id);
  }

  async setMetadata(id: string, key: string, value: string): Promise<void> {
    await tenancy.setMetadata(this.backend.registry, id, key, value);
  }

  async getMetadata(id: string, key: string): Promise<string | null> {
    return tenancy.getMetadata(this.backend.registry, id, key);
  }

  /** Every metadata entry of the session, by key. */
  async listMetadata(id: string): Promise<Record<string, string>> {
    return tenancy.listMetadata(this.backend.registry, id);
  }

  /** The import index: sources imported, erased, and import idempotency (docs/formats.md). */
  importIndex(): ImportIndex {
    return new ImportIndex(this.backend.registry);
  }

  // --- Snapshots ---

  /** The whole session with its registry row, owner and metadata; signed when a key is set. */
  async exportSession(id: string): Promise<SessionSnapshot> {
    const { exportSession } = await occasional();
    return exportSession(this.host, id, this.options.snapshotKey);
  }

  /**
   * Restores an exported session: same id (or a fresh one with `newId`), messages, overlays,
   * blocks, prompt, owner and metadata. An existing id throws and writes nothing.
   */
  async importSession(
    snapshot: SessionSnapshot,
    options: ImportSessionOptions = {},
  ): Promise<SessionInfo> {
    const { importSession } = await occasional();
    return importSession(
      this.host,
      snapshot,
      options,
      this.options.snapshotKey,
    );
  }

  // --- Internal helpers ---

  /** The context rows a session owns: its declared auto-wired blocks, its prompt, its created blocks. */
  private async ownedContextKeys(id: string): Promise<string[]> {
    return [
      ...this.settings.ownedContextKeys(id),
      ...(await createdBlockKeys(this.backend.registry, id)),
    ];
  }

  /**
   * A Session from the backend with this manager's settings, and its seam; its writes touch the
   * registry row.
   */
  private openConfigured(id: string): ManagedSession {
    const session = this.backend.openSession(id);
    const seam = sessionSeam(session);
    this.settings.apply(
      { session, seam },
      id,
      historyProvider(this.backend.registry, (q, o) => this.search(q, o)),
    );
    // An append whose statement already touched this registry's row (the backend's own
    // registry) needs no second statement; every other write touches it here.
    const ownRegistry =
      this.backend.backend?.registry === this.backend.registry;
    const registry = this.backend.registry;
    seam.storedBlocks((provider) => storedBlockConfigs(registry, id, provider));
    seam.onWrite((write) =>
      ownRegistry && write?.registryTouched
        ? undefined
        : this.backend.registry.touch(id, new Date().toISOString()),
    );
    return { session, seam };
  }
}

/** Fork, compact-and-split and snapshots, loaded on first use (`manager-occasional.ts`). */
function occasional() {
  return import("./manager-occasional.js");
}

/**
 * The manager's seam (session-seam.ts): what the layers above a manager (`arbor-memory/ai-sdk`)
 * may read of it beyond the public API.
 *
 * @internal Not public API: stripped from the published types.
 */
export function managerSeam(manager: SessionManager): ManagerSeam {
  return openManagerSeam(manager);
}
