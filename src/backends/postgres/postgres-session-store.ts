import type {
  ImportRecords,
  InsertMessageOptions,
  InsertMessageResult,
  PathEntry,
  StoredMessageRecord,
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
import { encodeForStorage } from "../../session/core/attachments.js";
import type { PostgresExecutor } from "./postgres-client.js";
import {
  deleteCompactionRow,
  insertCompaction,
  readCompactions,
} from "./postgres-compactions.js";
import { readConfig, writeConfig } from "./postgres-config.js";
import { importSessionRecords } from "./postgres-import.js";
import { sessionWrite } from "./postgres-locking.js";
import { countPath, loadPathIdSet } from "./postgres-path.js";
import {
  exportSessionMessages,
  loadBranches,
  loadHistory,
  loadLatestLeaf,
  loadMessage,
} from "./postgres-reads.js";
import { postgresSettings } from "./postgres-settings.js";
import type { StoreTokenEstimate } from "../../session/contracts/provider.js";
import { searchSessionMessages } from "./postgres-search.js";
import { clearSession, deleteWithRepair } from "./postgres-tree-repair.js";
import {
  loadHistoryRowStats,
  loadMessagesByIds,
  loadPathEntries,
  loadRecentHistory,
} from "./postgres-windows.js";
import { insertMessage, updateStoredMessage } from "./postgres-writes.js";
import { PostgresRegistryStore } from "./postgres-registry-store.js";
import { firstWriteSessionInfo } from "../../session/core/stored-rows.js";

/**
 * The implementation behind `PostgresSessionProvider` for one session: every query of the
 * message store. Loaded on the first call of a provider (`postgres-lazy.ts`), so a bundle that
 * never talks to PostgreSQL does not parse it.
 */
export class PostgresSessionStore {
  /** Set once this store has made sure the session has a registry row. */
  #registered = false;

  constructor(
    readonly db: PostgresExecutor,
    readonly sessionId: string,
    /** Appends set the registry row's `updated_at` in the insert (`PostgresSessionProviderOptions`). */
    readonly touchRegistry = false,
  ) {}

  async getMessage(id: string): Promise<SessionMessage | null> {
    await this.#ready();
    return loadMessage(this.db, this.sessionId, id);
  }

  async getHistory(leafId?: string | null): Promise<SessionMessage[]> {
    return (await this.getHistoryAndLeaf(leafId)).messages;
  }

  /** `getHistory` and the id of the leaf its path ends at, in one statement. */
  async getHistoryAndLeaf(
    leafId?: string | null,
  ): Promise<{ messages: SessionMessage[]; leafId: string | null }> {
    await this.#ready();
    return loadHistory(this.db, this.sessionId, target(leafId));
  }

  async getLatestLeaf(): Promise<SessionMessage | null> {
    await this.#ready();
    return loadLatestLeaf(this.db, this.sessionId);
  }

  async getBranches(messageId: string): Promise<SessionMessage[]> {
    await this.#ready();
    return loadBranches(this.db, this.sessionId, messageId);
  }

  async getPathLength(leafId?: string | null): Promise<number> {
    await this.#ready();
    return countPath(this.db, this.sessionId, target(leafId));
  }

  /**
   * Inserts the message in one statement that takes the session lock, resolves the parent with a
   * fresh snapshot (`arbor_resolve_parent`) and inserts: concurrent appends from any number of
   * processes form a chain. Says under which parent the row went; no write when the id already
   * exists in this session. `json`: the message's JSON when the caller has it.
   */
  async insertMessage(
    message: SessionMessage,
    parentId: string | null | undefined,
    json?: string,
    options?: InsertMessageOptions,
  ): Promise<InsertMessageResult> {
    // Encoded (and so validated) before waiting for the store: an invalid message throws first.
    const encoded = encodeForStorage(message, json);
    await this.#ready();
    // The registry row of "" (no namespace) is never written.
    const touch = this.touchRegistry && this.sessionId !== "";
    const result = await insertMessage(
      this.db,
      this.sessionId,
      message,
      encoded,
      parentId,
      touch ? new Date().toISOString() : null,
      options?.requireRegistered === true,
    );
    if (result.inserted && !touch) await this.#registerOnFirstWrite();
    return result;
  }

  /** Replaces content, role and search text of the message with this id; a no-op if absent. */
  async updateMessage(message: SessionMessage, json?: string): Promise<void> {
    const encoded = encodeForStorage(message, json);
    await this.#ready();
    await updateStoredMessage(this.db, this.sessionId, message, encoded);
  }

  /** Deletes with tree and overlay repair (docs/behavior/messages-and-tree.md), atomically under the session lock. */
  async deleteMessages(ids: readonly string[]): Promise<void> {
    if (!Array.isArray(ids) || ids.length === 0) return;
    await this.#ready();
    await sessionWrite(this.db, this.sessionId, (db, fingerprint) =>
      deleteWithRepair(db, this.sessionId, ids, fingerprint),
    );
  }

  /** Deletes the session's messages and overlays in one statement under the session lock. */
  async clearMessages(): Promise<void> {
    await this.#ready();
    await sessionWrite(this.db, this.sessionId, (db, fingerprint) =>
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
      this.db,
      this.sessionId,
      summary,
      fromMessageId,
      toMessageId,
      meta,
    );
  }

  async getCompactions(): Promise<StoredCompaction[]> {
    await this.#ready();
    return readCompactions(this.db, this.sessionId);
  }

  async deleteCompaction(id: string): Promise<boolean> {
    await this.#ready();
    return deleteCompactionRow(this.db, this.sessionId, id);
  }

  async searchMessages(
    query: string,
    limit?: number,
    options?: TextSearchOptions,
  ): Promise<SearchResult[]> {
    const { textSearchConfig } = await this.#ready();
    return searchSessionMessages(
      this.db,
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
      this.db,
      this.sessionId,
      target(leafId),
      maxContentBytes,
      minRecentMessages,
    );
  }

  /** `{ id, role, bytes }` per stored row on the path, without reading content. */
  async getHistoryRowStats(leafId?: string | null): Promise<HistoryRowStat[]> {
    await this.#ready();
    return loadHistoryRowStats(this.db, this.sessionId, target(leafId));
  }

  /** Streamed history: `{ id, bytes }` per row of the path, root first, without content. */
  async getPathIds(leafId?: string | null): Promise<PathEntry[]> {
    await this.#ready();
    return loadPathEntries(this.db, this.sessionId, target(leafId));
  }

  /** The ids on the path, in no order (explained search). */
  async getPathIdSet(leafId?: string | null): Promise<ReadonlySet<string>> {
    await this.#ready();
    return loadPathIdSet(this.db, this.sessionId, target(leafId));
  }

  /** The stored messages with these ids, in the given order; `null` for unknown ids. */
  async getMessagesByIds(
    ids: readonly string[],
  ): Promise<Array<SessionMessage | null>> {
    await this.#ready();
    return loadMessagesByIds(this.db, this.sessionId, ids);
  }

  /** How many messages the session stores, every branch counted (one COUNT). */
  async countMessages(): Promise<number> {
    await this.#ready();
    const [row] = await this.db.query<{ n: string | number }>(
      `SELECT COUNT(*) AS n FROM assistant_messages WHERE session_id = ?`,
      [this.sessionId],
    );
    return Number(row?.n ?? 0);
  }

  /** Every message of the session, all branches, in insertion order (unparseable rows skipped). */
  async exportMessages(): Promise<StoredMessageRecord[]> {
    await this.#ready();
    return exportSessionMessages(this.db, this.sessionId);
  }

  /**
   * Inserts exported records as they were (snapshot import, fork), atomically under the session
   * lock; `MESSAGE_EXISTS` and nothing written when an id is taken (without `replace`).
   */
  async importRecords(records: ImportRecords): Promise<void> {
    await this.#ready();
    await sessionWrite(this.db, this.sessionId, (db, fingerprint) =>
      importSessionRecords(db, this.sessionId, records, fingerprint),
    );
    if (records.messages.length > 0) await this.#registerOnFirstWrite();
  }

  /** A per-session value from `assistant_config`, or `null`. */
  async getConfig(key: string): Promise<string | null> {
    await this.#ready();
    return readConfig(this.db, this.sessionId, key);
  }

  /** Sets (or with `null` deletes) a per-session value in `assistant_config`. */
  async setConfig(key: string, value: string | null): Promise<void> {
    await this.#ready();
    await writeConfig(this.db, this.sessionId, key, value);
  }

  // --- Internal helpers ---

  /**
   * After a write that stored a message: gives the session its registry row unless it has one,
   * once per store object (docs/behavior/manager.md#sessions-written-without-the-manager), so
   * `arbor sessions list`, the server and the studio see sessions written without the manager.
   */
  async #registerOnFirstWrite(): Promise<void> {
    if (this.#registered || this.sessionId === "") return;
    this.#registered = true;
    try {
      await new PostgresRegistryStore(this.db).insertIfAbsent(
        firstWriteSessionInfo(this.sessionId, new Date().toISOString()),
      );
    } catch (error) {
      // The message is stored; a registry row that cannot be written must not fail the append.
      console.warn(
        `[arbor] Session "${this.sessionId}" could not be registered, so the manager will not list it: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** The token estimate recorded when the database was created (docs/token-estimation.md). */
  async getTokenEstimate(): Promise<StoreTokenEstimate> {
    return (await this.#ready()).tokenEstimate;
  }

  async #ready() {
    return postgresSettings(this.db);
  }
}

// --- Internal helpers ---

/** The message a read starts from: the given id, or `null` (= the latest leaf) for null/undefined/"". */
function target(leafId: string | null | undefined): string | null {
  return typeof leafId === "string" && leafId.length > 0 ? leafId : null;
}
