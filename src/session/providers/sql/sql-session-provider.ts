import type { BlockHistoryStore } from "../../contracts/block-history.js";
import { PathCache } from "./sql-path-cache.js";
import { decodeAll, materializeSpans } from "../../core/stored-rows.js";
import { importRecords } from "./sql-import.js";
import { AgentBlockHistory } from "./sql-block-history.js";
import { AgentContextProvider } from "./sql-context-provider.js";
import { historyFromPath } from "../../core/path-history.js";
import {
  decodeMessage,
  encodeMessage,
  noteStoredParent,
} from "../../core/message-codec.js";
import { chooseRecentWindow } from "../../core/recent-window.js";
import { ArborTypeError } from "../../errors/index.js";
import type {
  ImportRecords,
  SessionProvider,
  StoredMessageRecord,
} from "../../contracts/provider.js";
import {
  isSqlProvider,
  type SqlProvider,
} from "../../contracts/sql-provider.js";
import type {
  CompactionMeta,
  HistoryRowStat,
  RecentHistoryResult,
  SearchResult,
  SessionMessage,
  StoredCompaction,
} from "../../contracts/types.js";
import {
  deleteCompactionRow,
  insertCompaction,
  readCompactions,
} from "./sql-compactions.js";
import { LatestLeafTracker } from "./sql-latest-leaf.js";
import { countPath, loadPathWithSizes } from "./sql-path.js";
import { ensureAgentSchema } from "./sql-schema.js";
import { searchSessionMessages, reindexMessage } from "./sql-search.js";
import { deleteWithRepair } from "./sql-tree-repair.js";
import { atomically, nowIso } from "./sql-transaction.js";

/**
 * The SQLite message store (docs/behavior/storage.md) over any object with a synchronous `sql` tagged template: a
 * Cloudflare Durable Object `Agent`, or `openSqlite()` on Node. Imports nothing platform-specific.
 *
 * Rows are ordered by an insertion sequence (`seq`), ids are unique per session, paths are read
 * with a recursive query of any depth, and the search index is linked to messages by `rowid = seq`,
 * so every write costs O(1) in the size of the session. Tables are created on first use. When the
 * store has `transaction()`, every read-then-write and multi-statement write runs inside it.
 * Every method answers synchronously.
 *
 * @example
 * ```ts
 * import { openSqlite } from "arbor-memory/sqlite";
 * import { AgentSessionProvider } from "arbor-memory/session";
 *
 * const provider = new AgentSessionProvider(openSqlite("memory.db"), "chat-1");
 * provider.appendMessage({ id: "m1", role: "user", parts: [{ type: "text", text: "Hello" }] });
 * provider.getHistory(); // [{ id: "m1", … }]
 * ```
 */
export class AgentSessionProvider implements SessionProvider {
  /** The session this provider reads and writes ("" = no namespace). */
  readonly sessionId: string;
  readonly #agent: SqlProvider;
  readonly #latestLeaf: LatestLeafTracker;
  readonly #paths: PathCache;

  constructor(agent: SqlProvider, sessionId = "") {
    if (!isSqlProvider(agent)) {
      throw new ArborTypeError(
        "INVALID_TARGET",
        "[arbor] [sqlite] AgentSessionProvider needs an object with a `sql` tagged template (a Durable Object Agent or openSqlite())",
      );
    }
    if (typeof sessionId !== "string") {
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        "[arbor] [sqlite] AgentSessionProvider session id must be a string",
      );
    }
    this.#agent = agent;
    this.sessionId = sessionId;
    this.#latestLeaf = new LatestLeafTracker(agent, sessionId);
    this.#paths = new PathCache(agent, sessionId);
  }

  /** The underlying store: sessions over the same agent and id share one append lock. */
  get storeIdentity(): object {
    return this.#agent;
  }

  /** The same store scoped to another session id. */
  forSession(sessionId: string): AgentSessionProvider {
    return new AgentSessionProvider(this.#agent, sessionId);
  }

  /** A writable block row in `cf_agents_context_blocks` under `key` (docs/behavior/session-setup.md auto-wiring). */
  createContextProvider(key: string): AgentContextProvider {
    return new AgentContextProvider(this.#agent, key);
  }

  /** Block history in `arbor_block_history`, scoped to this session (docs/behavior/context-blocks.md). */
  createBlockHistory(): BlockHistoryStore {
    return new AgentBlockHistory(this.#agent, this.sessionId);
  }

  getMessage(id: string): SessionMessage | null {
    this.#ready();
    const [row] = this.#agent.sql<{ content: string }>`
      SELECT content FROM assistant_messages WHERE session_id = ${this.sessionId} AND id = ${id}`;
    return row ? decodeMessage(row.content) : null;
  }

  getHistory(leafId?: string | null): SessionMessage[] {
    this.#ready();
    const target = this.#target(leafId);
    if (target === null) return [];
    const path = this.#paths.read(target);
    if (path.ids.length === 0) return [];
    const { messages } = path;
    return historyFromPath(
      path.ids,
      (index) => messages[index],
      readCompactions(this.#agent, this.sessionId),
    );
  }

  getLatestLeaf(): SessionMessage | null {
    const id = this.getLatestLeafId();
    return id === null ? null : this.getMessage(id);
  }

  getLatestLeafId(): string | null {
    this.#ready();
    return this.#latestLeaf.current();
  }

  getBranches(messageId: string): SessionMessage[] {
    this.#ready();
    const rows = this.#agent.sql<{ content: string }>`
      SELECT content FROM assistant_messages
      WHERE session_id = ${this.sessionId} AND parent_id = ${messageId}
      ORDER BY seq`;
    return decodeAll(rows.map((row) => row.content));
  }

  getPathLength(leafId?: string | null): number {
    this.#ready();
    const target = this.#target(leafId);
    return target === null ? 0 : countPath(this.#agent, this.sessionId, target);
  }

  /** Inserts the message; `false` (and no write) when its id already exists in this session. */
  appendMessage(message: SessionMessage, parentId?: string | null): boolean {
    const content = encodeMessage(message);
    this.#ready();
    const agent = this.#agent;
    const sessionId = this.sessionId;
    let appendedParent: string | null = null;
    // One transaction: the latest leaf read and the insert are atomic across processes.
    const seq = atomically(agent, () => {
      const parent = this.#resolveParent(parentId);
      appendedParent = parent;
      const [row] = agent.sql<{ seq: number }>`
        INSERT INTO assistant_messages (id, session_id, parent_id, role, content, created_at)
        VALUES (${message.id}, ${sessionId}, ${parent}, ${message.role}, ${content}, ${nowIso()})
        ON CONFLICT (session_id, id) DO NOTHING
        RETURNING seq`;
      // Not indexed here: the search index catches up on the next search (agent-search.ts).
      return row?.seq ?? null;
    });
    if (seq === null) return false;
    noteStoredParent(message, appendedParent);
    this.#paths.appended(message.id, content, appendedParent);
    this.#latestLeaf.remember(message.id, seq);
    return true;
  }

  /** Replaces content and role of the message with this id; a no-op (index untouched) if absent. */
  updateMessage(message: SessionMessage): void {
    const content = encodeMessage(message);
    this.#ready();
    const agent = this.#agent;
    const sessionId = this.sessionId;
    atomically(agent, () => {
      const [row] = agent.sql<{ seq: number }>`
        UPDATE assistant_messages SET content = ${content}, role = ${message.role}
        WHERE session_id = ${sessionId} AND id = ${message.id}
        RETURNING seq`;
      if (row) reindexMessage(agent, sessionId, row.seq, message);
    });
  }

  deleteMessages(ids: readonly string[]): void {
    if (!Array.isArray(ids) || ids.length === 0) return;
    this.#ready();
    const deleted = atomically(this.#agent, () =>
      deleteWithRepair(this.#agent, this.sessionId, ids),
    );
    if (deleted > 0) this.#latestLeaf.forget();
  }

  clearMessages(): void {
    this.#ready();
    const agent = this.#agent;
    const sessionId = this.sessionId;
    atomically(agent, () => {
      agent.sql`DELETE FROM assistant_fts
        WHERE rowid IN (SELECT seq FROM assistant_messages WHERE session_id = ${sessionId})`;
      agent.sql`DELETE FROM assistant_messages WHERE session_id = ${sessionId}`;
      agent.sql`DELETE FROM assistant_compactions WHERE session_id = ${sessionId}`;
    });
    this.#latestLeaf.forget();
  }

  addCompaction(
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): StoredCompaction {
    this.#ready();
    return atomically(this.#agent, () =>
      insertCompaction(
        this.#agent,
        this.sessionId,
        summary,
        fromMessageId,
        toMessageId,
        meta,
      ),
    );
  }

  getCompactions(): StoredCompaction[] {
    this.#ready();
    return readCompactions(this.#agent, this.sessionId);
  }

  deleteCompaction(id: string): boolean {
    this.#ready();
    return deleteCompactionRow(this.#agent, this.sessionId, id);
  }

  searchMessages(query: string, limit?: number): SearchResult[] {
    this.#ready();
    return searchSessionMessages(this.#agent, this.sessionId, query, limit);
  }

  /** The byte-budgeted suffix of the path (docs/behavior/history.md); content is read for the chosen rows only. */
  getRecentHistory(
    leafId: string | null | undefined,
    maxContentBytes: number,
    minRecentMessages = 1,
  ): RecentHistoryResult {
    this.#ready();
    const target = this.#target(leafId);
    const rows =
      target === null
        ? []
        : loadPathWithSizes(this.#agent, this.sessionId, target);
    if (rows.length === 0)
      return { messages: [], truncated: false, totalContentBytes: 0 };
    const window = chooseRecentWindow(
      rows,
      readCompactions(this.#agent, this.sessionId),
      maxContentBytes,
      minRecentMessages,
    );
    const seqs = window.spans.flatMap((span) =>
      span.kind === "row" ? [rows[span.index]!.seq] : [],
    );
    const contents = new Map<number, string>();
    for (const row of this.#agent.sql<{ seq: number; content: string }>`
      SELECT seq, content FROM assistant_messages
      WHERE seq IN (SELECT value FROM json_each(${JSON.stringify(seqs)}))`) {
      contents.set(row.seq, row.content);
    }
    return {
      messages: materializeSpans(window.spans, (index) =>
        contents.get(rows[index]!.seq),
      ),
      truncated: window.truncated,
      totalContentBytes: window.totalContentBytes,
    };
  }

  /** `{ id, role, bytes }` per stored row on the path, without reading content. */
  getHistoryRowStats(leafId?: string | null): HistoryRowStat[] {
    this.#ready();
    const target = this.#target(leafId);
    if (target === null) return [];
    return loadPathWithSizes(this.#agent, this.sessionId, target).map(
      (row) => ({
        id: row.id,
        role: row.role,
        bytes: row.bytes,
      }),
    );
  }

  /** Every message of the session, all branches, in insertion order (unparseable rows skipped). */
  exportMessages(): StoredMessageRecord[] {
    this.#ready();
    const records: StoredMessageRecord[] = [];
    for (const row of this.#agent.sql<{
      parent_id: string | null;
      content: string;
      created_at: string;
    }>`SELECT parent_id, content, created_at FROM assistant_messages
      WHERE session_id = ${this.sessionId} ORDER BY seq`) {
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

  /** A per-session value from `assistant_config`, or `null`. */
  getConfig(key: string): string | null {
    this.#ready();
    const [row] = this.#agent.sql<{ value: string }>`
      SELECT value FROM assistant_config WHERE session_id = ${this.sessionId} AND key = ${key}`;
    return row?.value ?? null;
  }

  /** Sets (or with `null` deletes) a per-session value in `assistant_config`. */
  setConfig(key: string, value: string | null): void {
    this.#ready();
    if (value === null) {
      this.#agent
        .sql`DELETE FROM assistant_config WHERE session_id = ${this.sessionId} AND key = ${key}`;
    } else {
      this.#agent
        .sql`INSERT INTO assistant_config (session_id, key, value) VALUES (${this.sessionId}, ${key}, ${value})
        ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value`;
    }
  }

  /** Inserts exported records as they were, atomically (snapshot import, fork). */
  importRecords(records: ImportRecords): void {
    this.#ready();
    atomically(this.#agent, () => {
      if (records.replace) this.clearMessages();
      importRecords(this.#agent, this.sessionId, records);
    });
    this.#latestLeaf.forget();
  }

  // --- Internal helpers ---

  #ready(): void {
    ensureAgentSchema(this.#agent);
  }

  /** The message a read starts from: the given id, or the latest leaf for null/undefined/"". */
  #target(leafId: string | null | undefined): string | null {
    return typeof leafId === "string" && leafId.length > 0
      ? leafId
      : this.#latestLeaf.current();
  }

  /** docs/behavior/messages-and-tree.md: undefined → latest leaf, null → root, an id of this session → it, else a root. */
  #resolveParent(parentId: string | null | undefined): string | null {
    if (parentId === undefined) return this.#latestLeaf.current();
    if (typeof parentId !== "string") return null;
    const [row] = this.#agent.sql<{ found: number }>`
      SELECT 1 AS found FROM assistant_messages WHERE session_id = ${this.sessionId} AND id = ${parentId}`;
    return row ? parentId : null;
  }
}

// --- Internal helpers ---
