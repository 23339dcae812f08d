import type { BlockHistoryStore } from "../../session/contracts/block-history.js";
import type {
  ChangeListener,
  Unsubscribe,
  WatchChangesOptions,
} from "../../session/contracts/changes.js";
import type { BackendEmbeddings } from "../../session/contracts/embedding-store.js";
import type {
  ImportRecords,
  MessageWrite,
  PathEntry,
  SessionProvider,
  StoredMessageRecord,
  StoreTokenEstimate,
  WriteMessagesOptions,
  WriteMessagesResult,
} from "../../session/contracts/provider.js";
import type {
  CompactionMeta,
  HistoryRowStat,
  RecentHistoryResult,
  SearchResult,
  TextSearchOptions,
  SessionMessage,
  StoredCompaction,
} from "../../session/contracts/types.js";
import { encodeForStorage } from "../../session/messages/attachments.js";
import { firstWriteSessionInfo } from "../../session/messages/stored-rows.js";
import { checkSessionId } from "./postgres-arguments.js";
import { PostgresBlockHistory } from "./postgres-block-history.js";
import {
  changeWatchersReady,
  watchPostgresChanges,
} from "./postgres-changes.js";
import {
  checkPostgresClient,
  type PostgresClient,
  type PostgresExecutor,
} from "./postgres-client.js";
import {
  deleteCompactionRow,
  insertCompaction,
  readCompactions,
} from "./postgres-compactions.js";
import { readConfig, writeConfig } from "./postgres-config.js";
import { PostgresContextProvider } from "./postgres-context-provider.js";
import { postgresEmbeddings } from "./postgres-embedding-access.js";
import { postgresExecutor } from "./postgres-executor.js";
import { sessionWrite } from "./postgres-locking.js";
import { countPath, loadPathIdSet } from "./postgres-path.js";
import {
  exportSessionMessages,
  loadBranches,
  loadHistory,
  loadHistoryWithin,
  loadLatestLeaf,
  loadMessage,
} from "./postgres-reads.js";
import { insertSessionRowIfAbsent } from "./postgres-registry-row.js";
import {
  postgresSettings,
  type PostgresSettings,
} from "./postgres-settings.js";
import {
  loadHistoryRowStats,
  loadMessagesByIds,
  loadPathEntries,
  loadRecentHistory,
} from "./postgres-windows.js";
import { insertMessages } from "./postgres-batch-writes.js";
import { insertMessage, updateStoredMessage } from "./postgres-writes.js";

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
 * `arbor-memory/session` re-exports this class under the same name, for code ported from the
 * Agents SDK; `postgresBackend(client)` is the whole database (`SessionManager.create()`).
 *
 * @example
 * ```ts
 * import pg from "pg";
 * import { Session } from "arbor-memory/session";
 * import { applyPostgresSchema, PostgresSessionProvider } from "arbor-memory/postgres";
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
  /** `writeMessages` honours `requireRegistered` (the registry is in the same database). */
  readonly insertChecksRegistry = true;
  /** `writeMessages` honours `requireParent`, in the insert statement itself. */
  readonly insertChecksParent = true;
  /** `importRecords` honours `reattach`, in the import statement itself. */
  readonly importReattaches = true;
  readonly #client: PostgresClient;
  readonly #db: PostgresExecutor;
  readonly #options: PostgresSessionProviderOptions;
  /** Set once this provider has made sure the session has a registry row. */
  #registered = false;

  constructor(
    client: PostgresClient,
    sessionId = "",
    options: PostgresSessionProviderOptions = {},
  ) {
    this.sessionId = checkSessionId(sessionId);
    this.#client = checkPostgresClient(client);
    this.#db = postgresExecutor(this.#client);
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
    await this.#ready();
    return loadMessage(this.#db, this.sessionId, id);
  }

  async getHistory(leafId?: string | null): Promise<SessionMessage[]> {
    return (await this.getHistoryAndLeaf(leafId)).messages;
  }

  /** `getHistory` and the id of the leaf its path ends at, in one statement. */
  async getHistoryAndLeaf(
    leafId?: string | null,
  ): Promise<{ messages: SessionMessage[]; leafId: string | null }> {
    await this.#ready();
    return loadHistory(this.#db, this.sessionId, target(leafId));
  }

  /** `getHistoryAndLeaf`, or `null` when the path is larger than `within`: one statement. */
  async getHistoryAndLeafWithin(
    leafId: string | null | undefined,
    within: { messages: number; bytes: number },
  ): Promise<{ messages: SessionMessage[]; leafId: string | null } | null> {
    await this.#ready();
    return loadHistoryWithin(this.#db, this.sessionId, target(leafId), within);
  }

  async getLatestLeaf(): Promise<SessionMessage | null> {
    await this.#ready();
    return loadLatestLeaf(this.#db, this.sessionId);
  }

  async getBranches(messageId: string): Promise<SessionMessage[]> {
    await this.#ready();
    return loadBranches(this.#db, this.sessionId, messageId);
  }

  async getPathLength(leafId?: string | null): Promise<number> {
    await this.#ready();
    return countPath(this.#db, this.sessionId, target(leafId));
  }

  /**
   * Inserts the message (the seed API's write, over `writeMessages`): one statement that takes the
   * session lock, resolves the parent with a fresh snapshot (`arbor_resolve_parent`) and inserts,
   * so concurrent appends from any number of processes form a chain. `false` (and no write) when
   * the id already exists in this session.
   */
  async appendMessage(
    message: SessionMessage,
    parentId?: string | null,
  ): Promise<boolean> {
    const result = await this.writeMessages([{ message }], { parentId });
    return result.inserted[0] === true;
  }

  /**
   * The one write (see `SessionProvider.writeMessages`): one statement whatever the number of
   * messages. It takes the session lock, resolves the first parent with a fresh snapshot, checks
   * the registry row and the given parent when asked to, and inserts every row (a chain of
   * several from one parameter, `insertMessages`), so it is atomic on every connection kind.
   */
  async writeMessages(
    messages: readonly MessageWrite[],
    options: WriteMessagesOptions = {},
  ): Promise<WriteMessagesResult> {
    // Encoded (and, without their JSON, checked) before waiting for the database: an invalid
    // message throws first, and nothing is written.
    const encoded = messages.map(({ message, json }) =>
      encodeForStorage(message, json),
    );
    if (messages.length === 0) return { inserted: [], firstParentId: null };
    await this.#ready();
    // The registry row of "" (no namespace) is never written.
    const touch = this.#options.touchRegistry === true && this.sessionId !== "";
    const checks = {
      touchedAt: touch ? new Date().toISOString() : null,
      requireRegistered: options.requireRegistered === true,
      requireParent: options.requireParent === true,
    };
    let result: WriteMessagesResult;
    if (messages.length === 1) {
      const one = await insertMessage(
        this.#db,
        this.sessionId,
        messages[0]!.message,
        encoded[0]!,
        options.parentId,
        checks,
      );
      // Members set one by one, not spread from conditional literals: this runs once per append.
      result = { inserted: [one.inserted], firstParentId: one.parentId };
      if (one.registryTouched === true) result.registryTouched = true;
      if (one.registered === false) result.registered = false;
      if (one.parentFound === false) result.parentFound = false;
    } else {
      result = await insertMessages(
        this.#db,
        this.sessionId,
        messages.map(({ message }) => message),
        encoded,
        options.parentId,
        checks,
      );
    }
    if (result.inserted.includes(true) && !touch)
      await this.#registerOnFirstWrite();
    return result;
  }

  /** Replaces content, role and search text of the message with this id; a no-op if absent. */
  async updateMessage(message: SessionMessage, json?: string): Promise<void> {
    const encoded = encodeForStorage(message, json);
    await this.#ready();
    await updateStoredMessage(this.#db, this.sessionId, message, encoded);
  }

  /** Deletes with tree and overlay repair (docs/behavior/messages-and-tree.md), atomically under the session lock. */
  async deleteMessages(ids: readonly string[]): Promise<void> {
    if (!Array.isArray(ids) || ids.length === 0) return;
    await this.#ready();
    const { deleteWithRepair } = await repair();
    await sessionWrite(this.#db, this.sessionId, (db, fingerprint) =>
      deleteWithRepair(db, this.sessionId, ids, fingerprint),
    );
  }

  /** Deletes the session's messages and overlays in one statement under the session lock. */
  async clearMessages(): Promise<void> {
    await this.#ready();
    const { clearSession } = await repair();
    await sessionWrite(this.#db, this.sessionId, (db, fingerprint) =>
      clearSession(db, this.sessionId, fingerprint),
    );
  }

  async addCompaction(
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): Promise<StoredCompaction> {
    await this.#ready();
    return insertCompaction(
      this.#db,
      this.sessionId,
      summary,
      fromMessageId,
      toMessageId,
      meta,
    );
  }

  async getCompactions(): Promise<StoredCompaction[]> {
    await this.#ready();
    return readCompactions(this.#db, this.sessionId);
  }

  async deleteCompaction(id: string): Promise<boolean> {
    await this.#ready();
    return deleteCompactionRow(this.#db, this.sessionId, id);
  }

  async searchMessages(
    query: string,
    limit?: number,
    options?: TextSearchOptions,
  ): Promise<SearchResult[]> {
    const { textSearchConfig } = await this.#ready();
    const { searchSessionMessages } = await import("./postgres-search.js");
    return searchSessionMessages(
      this.#db,
      textSearchConfig,
      this.sessionId,
      query,
      limit,
      options,
    );
  }

  /** The byte-budgeted suffix of the path (docs/behavior/history.md); content is read for the chosen rows only. */
  async getRecentHistory(
    leafId: string | null | undefined,
    maxContentBytes: number,
    minRecentMessages = 1,
  ): Promise<RecentHistoryResult> {
    await this.#ready();
    return loadRecentHistory(
      this.#db,
      this.sessionId,
      target(leafId),
      maxContentBytes,
      minRecentMessages,
    );
  }

  /** `{ id, role, bytes }` per stored row on the path, without reading content. */
  async getHistoryRowStats(leafId?: string | null): Promise<HistoryRowStat[]> {
    await this.#ready();
    return loadHistoryRowStats(this.#db, this.sessionId, target(leafId));
  }

  /** Streamed history: `{ id, bytes }` per row of the path, root first, without content. */
  async getPathIds(leafId?: string | null): Promise<PathEntry[]> {
    await this.#ready();
    return loadPathEntries(this.#db, this.sessionId, target(leafId));
  }

  /** The ids on the path, in no order (explained search). */
  async getPathIdSet(leafId?: string | null): Promise<ReadonlySet<string>> {
    await this.#ready();
    return loadPathIdSet(this.#db, this.sessionId, target(leafId));
  }

  /** The stored messages with these ids, in the given order; `null` for unknown ids. */
  async getMessagesByIds(
    ids: readonly string[],
  ): Promise<Array<SessionMessage | null>> {
    await this.#ready();
    return loadMessagesByIds(this.#db, this.sessionId, ids);
  }

  /** The token estimate recorded when the database was created (docs/token-estimation.md). */
  async getTokenEstimate(): Promise<StoreTokenEstimate> {
    return (await this.#ready()).tokenEstimate;
  }

  /** How many messages the session stores, every branch counted (one COUNT). */
  async countMessages(): Promise<number> {
    await this.#ready();
    const [row] = await this.#db.query<{ n: string | number }>(
      `SELECT COUNT(*) AS n FROM assistant_messages WHERE session_id = ?`,
      [this.sessionId],
    );
    return Number(row?.n ?? 0);
  }

  /** Every message of the session, all branches, in insertion order (unparseable rows skipped). */
  async exportMessages(): Promise<StoredMessageRecord[]> {
    await this.#ready();
    return exportSessionMessages(this.#db, this.sessionId);
  }

  /**
   * Inserts exported records as they were (snapshot import, fork), atomically under the session
   * lock; `MESSAGE_EXISTS` and nothing written when an id is taken (without `replace`).
   */
  async importRecords(records: ImportRecords): Promise<void> {
    await this.#ready();
    // Snapshot import and fork only: loaded on the first import.
    const { importSessionRecords } = await import("./postgres-import.js");
    await sessionWrite(this.#db, this.sessionId, (db, fingerprint) =>
      importSessionRecords(db, this.sessionId, records, fingerprint),
    );
    if (records.messages.length > 0) await this.#registerOnFirstWrite();
  }

  /** A per-session value from `assistant_config`, or `null`. */
  async getConfig(key: string): Promise<string | null> {
    await this.#ready();
    return readConfig(this.#db, this.sessionId, key);
  }

  /** Sets (or with `null` deletes) a per-session value in `assistant_config`. */
  async setConfig(key: string, value: string | null): Promise<void> {
    await this.#ready();
    await writeConfig(this.#db, this.sessionId, key, value);
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

  /** What every call waits for: the change watchers' start, then the database's settings. */
  async #ready(): Promise<PostgresSettings> {
    // A write issued after watch() returned waits until the watchers know where they start.
    await changeWatchersReady(this.#client);
    return postgresSettings(this.#db);
  }

  /**
   * After a write that stored a message: gives the session its registry row unless it has one,
   * once per provider object (docs/behavior/manager.md#sessions-written-without-the-manager), so
   * `arbor sessions list`, the server and the studio see sessions written without the manager.
   */
  async #registerOnFirstWrite(): Promise<void> {
    if (this.#registered || this.sessionId === "") return;
    this.#registered = true;
    try {
      await insertSessionRowIfAbsent(
        this.#db,
        firstWriteSessionInfo(this.sessionId, new Date().toISOString()),
      );
    } catch (error) {
      // The message is stored; a registry row that cannot be written must not fail the append.
      console.warn(
        `[arbor] Session "${this.sessionId}" could not be registered, so the manager will not list it: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

// --- Internal helpers ---

/**
 * Deletes and clears, with the tree and overlay repair they need: loaded on the first of them, as
 * the message search and the record import are, so a process that appends and reads does not load
 * them (ARCHITECTURE.md, "What loads lazily").
 */
function repair(): Promise<typeof import("./postgres-tree-repair.js")> {
  return import("./postgres-tree-repair.js");
}

/** The message a read starts from: the given id, or `null` (= the latest leaf) for null/undefined/"". */
function target(leafId: string | null | undefined): string | null {
  return typeof leafId === "string" && leafId.length > 0 ? leafId : null;
}
