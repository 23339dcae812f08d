import type { BlockHistoryStore } from "../../contracts/block-history.js";
import { decodeAll, materializeSpans } from "../../core/stored-rows.js";
import { historyFromPath } from "../../core/path-history.js";
import {
  decodeMessage,
  encodeMessage,
  noteStoredParent,
  searchableText,
} from "../../core/message-codec.js";
import { chooseRecentWindow } from "../../core/recent-window.js";
import { ArborTypeError } from "../../errors/index.js";
import type {
  ImportRecords,
  SessionProvider,
  StoredMessageRecord,
} from "../../contracts/provider.js";
import type {
  CompactionMeta,
  HistoryRowStat,
  RecentHistoryResult,
  SearchResult,
  SessionMessage,
  StoredCompaction,
} from "../../contracts/types.js";
import { PostgresBlockHistory } from "./postgres-block-history.js";
import {
  postgresExecutor,
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
import { importSessionRecords } from "./postgres-import.js";
import { SESSION_LOCK_SQL, sessionWrite } from "./postgres-locking.js";
import {
  countPath,
  loadPathWithContent,
  loadPathWithSizes,
} from "./postgres-path.js";
import { postgresSettings } from "./postgres-schema.js";
import { searchSessionMessages } from "./postgres-search.js";
import { indexText } from "./postgres-search-text.js";
import { isoSql, LATEST_LEAF_SQL, TEXT_ARRAY_SQL } from "./postgres-sql.js";
import { clearSession, deleteWithRepair } from "./postgres-tree-repair.js";

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
 * semantics (per-term AND, literal operators, CJK words inside sentences).
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
  readonly #db: PostgresExecutor;

  constructor(client: PostgresClient, sessionId = "") {
    if (typeof sessionId !== "string") {
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        "[arbor] [postgres] PostgresSessionProvider session id must be a string",
      );
    }
    this.#db = postgresExecutor(client);
    this.sessionId = sessionId;
  }

  /** The client: sessions over the same client and id share one in-process append lock. */
  get storeIdentity(): object {
    return this.#db.client;
  }

  /** The same store scoped to another session id. */
  forSession(sessionId: string): PostgresSessionProvider {
    return new PostgresSessionProvider(this.#db.client, sessionId);
  }

  /** A writable block row in `cf_agents_context_blocks` under `key` (docs/behavior/session-setup.md auto-wiring). */
  createContextProvider(key: string): PostgresContextProvider {
    return new PostgresContextProvider(this.#db.client, key);
  }

  /** Block history in `arbor_block_history`, scoped to this session (docs/behavior/context-blocks.md). */
  createBlockHistory(): BlockHistoryStore {
    return new PostgresBlockHistory(this.#db.client, this.sessionId);
  }

  async getMessage(id: string): Promise<SessionMessage | null> {
    await this.#ready();
    const [row] = await this.#db.query<{ content: string }>(
      "SELECT content FROM assistant_messages WHERE session_id = ? AND id = ?",
      [this.sessionId, id],
    );
    return row ? decodeMessage(row.content) : null;
  }

  async getHistory(leafId?: string | null): Promise<SessionMessage[]> {
    await this.#ready();
    const [rows, overlays] = await Promise.all([
      loadPathWithContent(this.#db, this.sessionId, target(leafId)),
      readCompactions(this.#db, this.sessionId),
    ]);
    return historyFromPath(
      rows.map((row) => row.id),
      (index) => decodeMessage(rows[index]!.content),
      overlays,
    );
  }

  async getLatestLeaf(): Promise<SessionMessage | null> {
    await this.#ready();
    const [row] = await this.#db.query<{ content: string }>(
      `SELECT content FROM assistant_messages WHERE session_id = ? AND id = (${LATEST_LEAF_SQL})`,
      [this.sessionId, this.sessionId],
    );
    return row ? decodeMessage(row.content) : null;
  }

  async getBranches(messageId: string): Promise<SessionMessage[]> {
    await this.#ready();
    const rows = await this.#db.query<{ content: string }>(
      `SELECT content FROM assistant_messages
      WHERE session_id = ? AND parent_id = ? ORDER BY seq`,
      [this.sessionId, messageId],
    );
    return decodeAll(rows.map((row) => row.content));
  }

  async getPathLength(leafId?: string | null): Promise<number> {
    await this.#ready();
    return countPath(this.#db, this.sessionId, target(leafId));
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
    const content = encodeMessage(message);
    await this.#ready();
    const sessionId = this.sessionId;
    const rows = await this.#db.query<{
      seq: string;
      parent_id: string | null;
    }>(
      `WITH locked AS MATERIALIZED (SELECT ${SESSION_LOCK_SQL} AS locked),
      parent AS MATERIALIZED (
        SELECT arbor_resolve_parent(?, ?, ?::boolean) AS id FROM locked
      )
      INSERT INTO assistant_messages (id, session_id, parent_id, role, content, text_content, created_at)
      SELECT ?, ?, parent.id, ?, ?, ?, clock_timestamp() FROM parent
      ON CONFLICT (session_id, id) DO NOTHING
      RETURNING seq, parent_id`,
      [
        sessionId,
        sessionId,
        typeof parentId === "string" ? parentId : null,
        parentId === undefined,
        message.id,
        sessionId,
        message.role,
        content,
        indexText(searchableText(message)),
      ],
    );
    const [inserted] = rows;
    if (inserted) noteStoredParent(message, inserted.parent_id ?? null);
    return inserted !== undefined;
  }

  /** Replaces content, role and search text of the message with this id; a no-op if absent. */
  async updateMessage(message: SessionMessage): Promise<void> {
    const content = encodeMessage(message);
    await this.#ready();
    await this.#db.query(
      `UPDATE assistant_messages SET content = ?, role = ?, text_content = ?
      WHERE session_id = ? AND id = ?`,
      [
        content,
        message.role,
        indexText(searchableText(message)),
        this.sessionId,
        message.id,
      ],
    );
  }

  /** Deletes with tree and overlay repair (docs/behavior/messages-and-tree.md), atomically under the session lock. */
  async deleteMessages(ids: readonly string[]): Promise<void> {
    if (!Array.isArray(ids) || ids.length === 0) return;
    await this.#ready();
    await sessionWrite(this.#db, this.sessionId, (db, fingerprint) =>
      deleteWithRepair(db, this.sessionId, ids, fingerprint),
    );
  }

  /** Deletes the session's messages and overlays in one statement under the session lock. */
  async clearMessages(): Promise<void> {
    await this.#ready();
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

  async searchMessages(query: string, limit?: number): Promise<SearchResult[]> {
    const { textSearchConfig } = await this.#ready();
    return searchSessionMessages(
      this.#db,
      textSearchConfig,
      this.sessionId,
      query,
      limit,
    );
  }

  /** The byte-budgeted suffix of the path (docs/behavior/history.md); content is read for the chosen rows only. */
  async getRecentHistory(
    leafId: string | null | undefined,
    maxContentBytes: number,
    minRecentMessages = 1,
  ): Promise<RecentHistoryResult> {
    await this.#ready();
    const [rows, overlays] = await Promise.all([
      loadPathWithSizes(this.#db, this.sessionId, target(leafId)),
      readCompactions(this.#db, this.sessionId),
    ]);
    if (rows.length === 0)
      return { messages: [], truncated: false, totalContentBytes: 0 };
    const window = chooseRecentWindow(
      rows,
      overlays,
      maxContentBytes,
      minRecentMessages,
    );
    const ids = window.spans.flatMap((span) =>
      span.kind === "row" ? [rows[span.index]!.id] : [],
    );
    const contents = new Map<string, string>();
    if (ids.length > 0) {
      for (const row of await this.#db.query<{ id: string; content: string }>(
        `SELECT id, content FROM assistant_messages
        WHERE session_id = ? AND id = ANY(${TEXT_ARRAY_SQL})`,
        [this.sessionId, JSON.stringify(ids)],
      )) {
        contents.set(row.id, row.content);
      }
    }
    return {
      messages: materializeSpans(window.spans, (index) =>
        contents.get(rows[index]!.id),
      ),
      truncated: window.truncated,
      totalContentBytes: window.totalContentBytes,
    };
  }

  /** `{ id, role, bytes }` per stored row on the path, without reading content. */
  async getHistoryRowStats(leafId?: string | null): Promise<HistoryRowStat[]> {
    await this.#ready();
    const rows = await loadPathWithSizes(
      this.#db,
      this.sessionId,
      target(leafId),
    );
    return rows.map((row) => ({
      id: row.id,
      role: row.role,
      bytes: row.bytes,
    }));
  }

  /** Every message of the session, all branches, in insertion order (unparseable rows skipped). */
  async exportMessages(): Promise<StoredMessageRecord[]> {
    await this.#ready();
    const records: StoredMessageRecord[] = [];
    for (const row of await this.#db.query<{
      parent_id: string | null;
      content: string;
      created_at: string;
    }>(
      `SELECT parent_id, content, ${isoSql("created_at")} AS created_at
      FROM assistant_messages WHERE session_id = ? ORDER BY seq`,
      [this.sessionId],
    )) {
      const message = decodeMessage(row.content);
      if (message)
        records.push({
          message,
          parentId: row.parent_id,
          createdAt: row.created_at,
        });
    }
    return records;
  }

  /**
   * Inserts exported records as they were (snapshot import, fork), atomically under the session
   * lock; `MESSAGE_EXISTS` and nothing written when an id is taken (without `replace`).
   */
  async importRecords(records: ImportRecords): Promise<void> {
    await this.#ready();
    await sessionWrite(this.#db, this.sessionId, (db, fingerprint) =>
      importSessionRecords(db, this.sessionId, records, fingerprint),
    );
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

  // --- Internal helpers ---

  #ready() {
    return postgresSettings(this.#db);
  }
}

// --- Internal helpers ---

/** The message a read starts from: the given id, or `null` (= the latest leaf) for null/undefined/"". */
function target(leafId: string | null | undefined): string | null {
  return typeof leafId === "string" && leafId.length > 0 ? leafId : null;
}
