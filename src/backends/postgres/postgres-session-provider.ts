import type { BlockHistoryStore } from "../../session/contracts/block-history.js";
import { postgresEmbeddings } from "./postgres-embedding-access.js";
import type {
  ChangeListener,
  Unsubscribe,
  WatchChangesOptions,
} from "../../session/contracts/changes.js";
import type {
  ImportRecords,
  InsertMessageOptions,
  InsertMessageResult,
  PathEntry,
  SessionProvider,
  StoredMessageRecord,
  StoreTokenEstimate,
} from "../../session/contracts/provider.js";
import type { BackendEmbeddings } from "../../session/contracts/embedding-store.js";
import type {
  CompactionMeta,
  HistoryRowStat,
  RecentHistoryResult,
  SearchResult,
  TextSearchOptions,
  SessionMessage,
  StoredCompaction,
} from "../../session/contracts/types.js";
import { ArborTypeError } from "../../session/errors/index.js";
import { PostgresBlockHistory } from "./postgres-block-history.js";
import {
  changeWatchersReady,
  watchPostgresChanges,
} from "./postgres-changes.js";
import { checkPostgresClient, type PostgresClient } from "./postgres-client.js";
import { PostgresContextProvider } from "./postgres-context-provider.js";
import { postgresOps } from "./postgres-lazy.js";
import type { PostgresSessionStore } from "./postgres-session-store.js";

/** Options of `PostgresSessionProvider`. */
export interface PostgresSessionProviderOptions {
  /**
   * Each append also sets the session's `assistant_sessions.updated_at` (registering a session
   * without a row), in the insert statement itself: what a SessionManager does after every
   * append, without the second round trip. The sessions of `postgresBackend()` (and so of
   * `SessionManager.create(pool)`) have it; default `false`, where only the first append
   * registers a session without a row and `updated_at` is left to the manager.
   */
  touchRegistry?: boolean;
}

/**
 * The PostgreSQL message store (docs/behavior/storage.md): the full `SessionProvider`, for several app instances
 * sharing one database. Takes a `pg` Pool or Client, or a Hyperdrive-style `execute` connection;
 * it never opens or closes it, never creates tables (run `applyPostgresSchema()` once) and imports
 * no driver, so it loads in workerd.
 *
 * Appends, deletes and clears are atomic across processes on every connection kind: they hold a
 * per-session advisory lock, and reads that decide a write take a fresh snapshot after it
 * (docs/postgres.md, "Concurrency"). Rows are ordered by an insertion sequence, paths are read
 * with a recursive query of any depth over `(id, parent_id)` only, and search follows SQLite's
 * semantics (ranked any-term matching, literal operators, CJK words inside sentences).
 *
 * @example
 * ```ts
 * import pg from "pg";
 * import { applyPostgresSchema, PostgresSessionProvider, Session } from "arbor-memory/session";
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await applyPostgresSchema(pool);
 * const session = Session.create(new PostgresSessionProvider(pool, "chat-1"))
 *   .withContext("memory")
 *   .withCachedPrompt();
 * await session.appendMessage({ id: "u1", role: "user", parts: [{ type: "text", text: "Hi" }] });
 * ```
 */
export class PostgresSessionProvider implements SessionProvider {
  /** The session this provider reads and writes ("" = no namespace). */
  readonly sessionId: string;
  /** Inline file data is kept once per database in `arbor_attachments`, apart from the rows. */
  readonly storesAttachments = true;
  /** `insertMessage` honours `requireRegistered` (the registry is in the same database). */
  readonly insertChecksRegistry = true;
  readonly #client: PostgresClient;
  readonly #options: PostgresSessionProviderOptions;
  #loaded: PostgresSessionStore | undefined;

  constructor(
    client: PostgresClient,
    sessionId = "",
    options: PostgresSessionProviderOptions = {},
  ) {
    if (typeof sessionId !== "string") {
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        "[arbor] [postgres] PostgresSessionProvider session id must be a string",
      );
    }
    this.#client = checkPostgresClient(client);
    this.sessionId = sessionId;
    this.#options = { touchRegistry: options.touchRegistry === true };
  }

  /** The client: sessions over the same client and id share one in-process append lock. */
  get storeIdentity(): object {
    return this.#client;
  }

  /** The database's embeddings (pgvector when installed, else an exact scan over `real[]`). */
  embeddings(): BackendEmbeddings {
    return postgresEmbeddings(this.#client);
  }

  /** The same store scoped to another session id. */
  forSession(sessionId: string): PostgresSessionProvider {
    return new PostgresSessionProvider(this.#client, sessionId, this.#options);
  }

  /** A writable block row in `cf_agents_context_blocks` under `key` (docs/behavior/session-setup.md auto-wiring). */
  createContextProvider(key: string): PostgresContextProvider {
    return new PostgresContextProvider(this.#client, key);
  }

  /** Block history in `arbor_block_history`, scoped to this session (docs/behavior/context-blocks.md). */
  createBlockHistory(): BlockHistoryStore {
    return new PostgresBlockHistory(this.#client, this.sessionId);
  }

  async getMessage(id: string): Promise<SessionMessage | null> {
    return (await this.#store()).getMessage(id);
  }

  async getHistory(leafId?: string | null): Promise<SessionMessage[]> {
    return (await this.#store()).getHistory(leafId);
  }

  /** `getHistory` and the id of the leaf its path ends at, in one statement. */
  async getHistoryAndLeaf(
    leafId?: string | null,
  ): Promise<{ messages: SessionMessage[]; leafId: string | null }> {
    return (await this.#store()).getHistoryAndLeaf(leafId);
  }

  async getLatestLeaf(): Promise<SessionMessage | null> {
    return (await this.#store()).getLatestLeaf();
  }

  async getBranches(messageId: string): Promise<SessionMessage[]> {
    return (await this.#store()).getBranches(messageId);
  }

  async getPathLength(leafId?: string | null): Promise<number> {
    return (await this.#store()).getPathLength(leafId);
  }

  /**
   * Inserts the message in one statement that takes the session lock, resolves the parent with a
   * fresh snapshot (`arbor_resolve_parent`) and inserts: concurrent appends from any number of
   * processes form a chain. `false` (and no write) when the id already exists in this session.
   */
  async appendMessage(
    message: SessionMessage,
    parentId?: string | null,
  ): Promise<boolean> {
    const store = await this.#store();
    return (await store.insertMessage(message, parentId)).inserted;
  }

  /** `appendMessage` that says under which parent the row went (the Session's append). */
  async insertMessage(
    message: SessionMessage,
    parentId: string | null | undefined,
    json?: string,
    options?: InsertMessageOptions,
  ): Promise<InsertMessageResult> {
    return (await this.#store()).insertMessage(
      message,
      parentId,
      json,
      options,
    );
  }

  /** Replaces content, role and search text of the message with this id; a no-op if absent. */
  async updateMessage(message: SessionMessage, json?: string): Promise<void> {
    return (await this.#store()).updateMessage(message, json);
  }

  /** Deletes with tree and overlay repair (docs/behavior/messages-and-tree.md), atomically under the session lock. */
  async deleteMessages(ids: readonly string[]): Promise<void> {
    return (await this.#store()).deleteMessages(ids);
  }

  /** Deletes the session's messages and overlays in one statement under the session lock. */
  async clearMessages(): Promise<void> {
    return (await this.#store()).clearMessages();
  }

  async addCompaction(
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): Promise<StoredCompaction> {
    return (await this.#store()).addCompaction(
      summary,
      fromMessageId,
      toMessageId,
      meta,
    );
  }

  async getCompactions(): Promise<StoredCompaction[]> {
    return (await this.#store()).getCompactions();
  }

  async deleteCompaction(id: string): Promise<boolean> {
    return (await this.#store()).deleteCompaction(id);
  }

  async searchMessages(
    query: string,
    limit?: number,
    options?: TextSearchOptions,
  ): Promise<SearchResult[]> {
    return (await this.#store()).searchMessages(query, limit, options);
  }

  /** The byte-budgeted suffix of the path (docs/behavior/history.md); content is read for the chosen rows only. */
  async getRecentHistory(
    leafId: string | null | undefined,
    maxContentBytes: number,
    minRecentMessages = 1,
  ): Promise<RecentHistoryResult> {
    return (await this.#store()).getRecentHistory(
      leafId,
      maxContentBytes,
      minRecentMessages,
    );
  }

  /** `{ id, role, bytes }` per stored row on the path, without reading content. */
  async getHistoryRowStats(leafId?: string | null): Promise<HistoryRowStat[]> {
    return (await this.#store()).getHistoryRowStats(leafId);
  }

  /** Streamed history: `{ id, bytes }` per row of the path, root first, without content. */
  async getPathIds(leafId?: string | null): Promise<PathEntry[]> {
    return (await this.#store()).getPathIds(leafId);
  }

  /** The ids on the path, in no order (explained search). */
  async getPathIdSet(leafId?: string | null): Promise<ReadonlySet<string>> {
    return (await this.#store()).getPathIdSet(leafId);
  }

  /** The stored messages with these ids, in the given order; `null` for unknown ids. */
  async getMessagesByIds(
    ids: readonly string[],
  ): Promise<Array<SessionMessage | null>> {
    return (await this.#store()).getMessagesByIds(ids);
  }

  /** The token estimate recorded when the database was created (docs/token-estimation.md). */
  async getTokenEstimate(): Promise<StoreTokenEstimate> {
    return (await this.#store()).getTokenEstimate();
  }

  /** How many messages the session stores, every branch counted (one COUNT). */
  async countMessages(): Promise<number> {
    return (await this.#store()).countMessages();
  }

  /** Every message of the session, all branches, in insertion order (unparseable rows skipped). */
  async exportMessages(): Promise<StoredMessageRecord[]> {
    return (await this.#store()).exportMessages();
  }

  /**
   * Inserts exported records as they were (snapshot import, fork), atomically under the session
   * lock; `MESSAGE_EXISTS` and nothing written when an id is taken (without `replace`).
   */
  async importRecords(records: ImportRecords): Promise<void> {
    return (await this.#store()).importRecords(records);
  }

  /** A per-session value from `assistant_config`, or `null`. */
  async getConfig(key: string): Promise<string | null> {
    return (await this.#store()).getConfig(key);
  }

  /** Sets (or with `null` deletes) a per-session value in `assistant_config`. */
  async setConfig(key: string, value: string | null): Promise<void> {
    return (await this.#store()).setConfig(key, value);
  }

  /** Calls `listener` once per committed write to this session (every session with `allSessions`), from any client. */
  watchChanges(
    listener: ChangeListener,
    options: WatchChangesOptions = {},
  ): Unsubscribe {
    const sessionId = options.allSessions ? null : this.sessionId;
    return watchPostgresChanges(
      this.#client,
      { sessionId, after: options.after, onStart: options.onStart },
      listener,
    );
  }

  // --- Internal helpers ---

  /** The queries, loaded on the first call (docs/behavior/runtime.md, "Bundle size on Workers"). */
  async #store(): Promise<PostgresSessionStore> {
    // A write issued after watch() returned waits until the watchers know where they start.
    await changeWatchersReady(this.#client);
    if (!this.#loaded) {
      const ops = await postgresOps();
      this.#loaded ??= new ops.PostgresSessionStore(
        ops.postgresExecutor(this.#client),
        this.sessionId,
        this.#options.touchRegistry === true,
      );
    }
    return this.#loaded;
  }
}
