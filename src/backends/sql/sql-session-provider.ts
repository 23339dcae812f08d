import { mapSqlErrors } from "./sql-errors.js";
import type { BlockHistoryStore } from "../../session/contracts/block-history.js";
import type {
  ChangeListener,
  Unsubscribe,
  WatchChangesOptions,
} from "../../session/contracts/changes.js";
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
import type { BackendEmbeddings } from "../../session/contracts/embedding-store.js";
import {
  isSqlProvider,
  type SqlProvider,
} from "../../session/contracts/sql-provider.js";
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
import { ArborTypeError, invalidArgument } from "../../session/errors/index.js";
import { AgentBlockHistory } from "./sql-block-history.js";
import { watchSqlChanges } from "./sql-changes.js";
import { sqlEmbeddings } from "./sql-embedding-access.js";
import {
  deleteCompactionRow,
  insertCompaction,
  readCompactions,
} from "./sql-compactions.js";
import { readConfig, writeConfig } from "./sql-config.js";
import { AgentContextProvider } from "./sql-context-provider.js";
import { importRecords } from "./sql-import.js";
import { isRegistered, registerIfAbsent } from "./sql-registry-table.js";
import { firstWriteSessionInfo } from "../../session/messages/stored-rows.js";
import { LatestLeafTracker } from "./sql-latest-leaf.js";
import { splitContent } from "./sql-message-chunks.js";
import { PathCache } from "./sql-path-cache.js";
import { pathLength } from "./sql-path-read.js";
import {
  exportSessionMessages,
  loadBranches,
  loadHistory,
  loadMessage,
} from "./sql-reads.js";
import { ensureAgentSchema, storeTokenEstimate } from "./sql-schema.js";
import { searchSessionMessages } from "./sql-search.js";
import { atomically, writeChecked } from "./sql-transaction.js";
import {
  loadHistoryRowStats,
  loadMessagesByIds,
  loadPathEntries,
} from "./sql-windows.js";
import {
  clearSession,
  appendMessageRow,
  deleteMessageRows,
  insertMessageChain,
  resolveParent,
  updateMessageRow,
} from "./sql-writes.js";

/**
 * The SQLite message store (docs/behavior/storage.md) over any object with a synchronous `sql` tagged template: a
 * Cloudflare Durable Object `Agent`, or `openSqlite()` on Node. Imports nothing platform-specific.
 *
 * Rows are ordered by an insertion sequence (`seq`), ids are unique per session, paths are read
 * of any depth by a backward scan of the session's links (a recursive query where that does not
 * fit, sql-path-read.ts), and the search index is linked to messages by `rowid = seq`,
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
  /** Inline file data is kept once per store in `arbor_attachments`, apart from the rows. */
  readonly storesAttachments = true;
  /** `writeMessages` honours `requireRegistered` (the registry is in the same store). */
  readonly insertChecksRegistry = true;
  /** `importRecords` honours `reattach`. */
  readonly importReattaches = true;
  readonly #agent: SqlProvider;
  readonly #latestLeaf: LatestLeafTracker;
  readonly #paths: PathCache;
  /** Set once this provider has made sure the session has a registry row. */
  #registered = false;

  constructor(agent: SqlProvider, sessionId = "") {
    if (!isSqlProvider(agent)) {
      throw new ArborTypeError(
        "INVALID_TARGET",
        "[arbor] [sqlite] AgentSessionProvider needs an object with a `sql` tagged template (a Durable Object Agent or openSqlite())",
      );
    }
    if (typeof sessionId !== "string") {
      throw invalidArgument(
        "[sqlite] AgentSessionProvider session id must be a string",
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

  /** The store's embeddings (sqlite-vec when loaded, else an exact scan). */
  embeddings(): BackendEmbeddings {
    return sqlEmbeddings(this.#agent);
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
    return loadMessage(this.#agent, this.sessionId, id);
  }

  getHistory(leafId?: string | null): SessionMessage[] {
    this.#ready();
    const target = this.#target(leafId);
    if (target === null) return [];
    return loadHistory(this.#agent, this.sessionId, this.#paths.read(target));
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
    return loadBranches(this.#agent, this.sessionId, messageId);
  }

  getPathLength(leafId?: string | null): number {
    this.#ready();
    const target = this.#target(leafId);
    return target === null
      ? 0
      : pathLength(this.#agent, this.sessionId, target);
  }

  /**
   * Inserts the message (the seed API's write, over `writeMessages`); `false` (and no write) when
   * its id already exists in this session.
   */
  appendMessage(message: SessionMessage, parentId?: string | null): boolean {
    return this.writeMessages([{ message }], { parentId }).inserted[0] === true;
  }

  /**
   * The one write (see `SessionProvider.writeMessages`): one message in one statement when it can
   * (the usual append), a chain in one transaction.
   */
  writeMessages(
    messages: readonly MessageWrite[],
    options: WriteMessagesOptions = {},
  ): WriteMessagesResult {
    if (messages.length === 1) return this.#writeOne(messages[0]!, options);
    return this.#writeChain(messages, options);
  }

  /** One message: the parent lookup and the insert in one statement (sql-writes.ts). */
  #writeOne(
    { message, json }: MessageWrite,
    options: WriteMessagesOptions,
  ): WriteMessagesResult {
    const { json: content, attachments: extracted } = encodeForStorage(
      message,
      json,
    );
    const split = splitContent(content);
    this.#ready();
    const agent = this.#agent;
    const sessionId = this.sessionId;
    const latestLeaf = this.#latestLeaf;
    const paths = this.#paths;
    const parentId = options.parentId;
    const requireRegistered = options.requireRegistered === true;
    let unregistered = false;
    const write = () => {
      if (requireRegistered && !isRegistered(agent, sessionId)) {
        unregistered = true;
        return null;
      }
      const before = paths.tokenBeforeWrite();
      const row = appendMessageRow(
        agent,
        sessionId,
        latestLeaf,
        message,
        parentId,
        split,
        extracted,
      );
      if (row) {
        paths.noteAppend(before, message.id, content, row.parentId, split);
        this.#registerOnFirstWrite();
      }
      return row;
    };
    // The parent lookup, the insert and its change notice are one statement, atomic on its own
    // (the usual append: one statement, no transaction). Chunks, attachments, the first write's
    // registry row or a kept path (whose change token must not miss another process's commit
    // in between) make more statements, and those run in one transaction.
    // A required registry row is read in the insert's transaction, so no delete slips between.
    const single =
      !requireRegistered &&
      split.chunkedBytes === null &&
      extracted.length === 0 &&
      (this.#registered || sessionId === "") &&
      !paths.keepsAnything;
    const written = single
      ? writeChecked(agent, write)
      : atomically(agent, write);
    if (written === null)
      return unregistered
        ? { inserted: [false], firstParentId: null, registered: false }
        : { inserted: [false], firstParentId: null };
    latestLeaf.remember(message.id, written.seq);
    return { inserted: [true], firstParentId: written.parentId };
  }

  /** Many messages (or none) in one transaction, each under the one before it (`session.appendAll()`). */
  #writeChain(
    messages: readonly MessageWrite[],
    options: WriteMessagesOptions,
  ): WriteMessagesResult {
    // Every message is encoded (and, without its JSON, checked) before anything is written.
    const rows = messages.map(({ message, json }) => {
      const encoded = encodeForStorage(message, json);
      return {
        message,
        split: splitContent(encoded.json),
        extracted: encoded.attachments,
      };
    });
    this.#ready();
    const agent = this.#agent;
    const sessionId = this.sessionId;
    const requireRegistered = options.requireRegistered === true;
    const written = atomically(agent, () => {
      if (requireRegistered && !isRegistered(agent, sessionId)) return null;
      const first = resolveParent(
        agent,
        sessionId,
        this.#latestLeaf,
        options.parentId,
      );
      const seqs = insertMessageChain(agent, sessionId, rows, first);
      if (seqs.some((seq) => seq !== null)) this.#registerOnFirstWrite();
      return { firstParentId: first, seqs };
    });
    if (written === null)
      return {
        inserted: messages.map(() => false),
        firstParentId: null,
        registered: false,
      };
    const { firstParentId, seqs } = written;
    this.#paths.clear();
    const last = seqs.findLastIndex((seq) => seq !== null);
    if (last >= 0)
      this.#latestLeaf.remember(messages[last]!.message.id, seqs[last]!);
    return { inserted: seqs.map((seq) => seq !== null), firstParentId };
  }

  /** Replaces content and role of the message with this id; a no-op (index untouched) if absent. */
  updateMessage(message: SessionMessage, json?: string): void {
    const { json: content, attachments: extracted } = encodeForStorage(
      message,
      json,
    );
    const split = splitContent(content);
    this.#ready();
    updateMessageRow(this.#agent, this.sessionId, message, split, extracted);
  }

  deleteMessages(ids: readonly string[]): void {
    if (!Array.isArray(ids) || ids.length === 0) return;
    this.#ready();
    const deleted = deleteMessageRows(this.#agent, this.sessionId, ids);
    if (deleted > 0) this.#latestLeaf.forget();
  }

  clearMessages(): void {
    this.#ready();
    clearSession(this.#agent, this.sessionId);
    this.#latestLeaf.forget();
  }

  addCompaction(
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): StoredCompaction {
    this.#ready();
    return insertCompaction(
      this.#agent,
      this.sessionId,
      summary,
      fromMessageId,
      toMessageId,
      meta,
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

  searchMessages(
    query: string,
    limit?: number,
    options?: TextSearchOptions,
  ): SearchResult[] {
    this.#ready();
    // The index catch-up writes rows but leaves the tree as it is: the kept paths stay.
    const before = this.#paths.tokenBeforeWrite();
    const hits = searchSessionMessages(
      this.#agent,
      this.sessionId,
      query,
      limit,
      options,
    );
    this.#paths.noteIndexWrite(before);
    return hits;
  }

  /** The byte-budgeted suffix of the path (docs/behavior/history.md); content is read for the chosen rows only. */
  async getRecentHistory(
    leafId: string | null | undefined,
    maxContentBytes: number,
    minRecentMessages = 1,
  ): Promise<RecentHistoryResult> {
    // Loaded with the first window asked for: a Durable Object that never asks ships without it
    // (the studio's and the server's newest-page read is its main user).
    const { loadRecentHistory } = await import("./sql-recent-path.js");
    this.#ready();
    return loadRecentHistory(
      this.#agent,
      this.sessionId,
      this.#target(leafId),
      maxContentBytes,
      minRecentMessages,
    );
  }

  /** `{ id, role, bytes }` per stored row on the path, without reading content. */
  getHistoryRowStats(leafId?: string | null): HistoryRowStat[] {
    this.#ready();
    return loadHistoryRowStats(
      this.#agent,
      this.sessionId,
      this.#target(leafId),
    );
  }

  /** `{ id, bytes }` per stored row on the path, root first, without content (streamed history). */
  getPathIds(leafId?: string | null): PathEntry[] {
    this.#ready();
    return loadPathEntries(this.#agent, this.sessionId, this.#target(leafId));
  }

  /**
   * `{ messages, leafId }` of the path when it holds at most `within.messages` rows and
   * `within.bytes` bytes of stored JSON, else `null` without reading content: how the server
   * answers a small history whole, in its request's turn, and streams a larger one. Synchronous,
   * so the path and its rows are one consistent read.
   */
  getHistoryAndLeafWithin(
    leafId: string | null | undefined,
    within: { messages: number; bytes: number },
  ): { messages: SessionMessage[]; leafId: string | null } | null {
    this.#ready();
    const target = this.#target(leafId);
    if (target === null) return { messages: [], leafId: null };
    const path = loadPathEntries(this.#agent, this.sessionId, target);
    if (path.length > within.messages) return null;
    let bytes = 0;
    for (const entry of path) bytes += entry.bytes;
    if (bytes > within.bytes) return null;
    // Within the bounds: the history as getHistory() reads it, its overlays applied.
    return {
      messages: loadHistory(
        this.#agent,
        this.sessionId,
        this.#paths.read(target),
      ),
      leafId: path.length > 0 ? target : null,
    };
  }

  /** The ids on the path (explained search), kept between searches while the tree is unchanged. */
  getPathIdSet(leafId?: string | null): ReadonlySet<string> {
    this.#ready();
    const target = this.#target(leafId);
    return target === null ? new Set() : this.#paths.idSet(target);
  }

  /** The stored messages with these ids, in the given order; `null` for unknown ids. */
  getMessagesByIds(ids: readonly string[]): Array<SessionMessage | null> {
    this.#ready();
    return loadMessagesByIds(this.#agent, this.sessionId, ids);
  }

  /** The token estimate recorded when the store was created (docs/token-estimation.md). */
  getTokenEstimate(): StoreTokenEstimate {
    this.#ready();
    return storeTokenEstimate(this.#agent);
  }

  /** How many messages the session stores, every branch counted (one COUNT). */
  countMessages(): number {
    this.#ready();
    const [row] = this.#agent.sql<{ n: number }>`SELECT COUNT(*) AS n
      FROM assistant_messages WHERE session_id = ${this.sessionId}`;
    return Number(row?.n ?? 0);
  }

  /** Every message of the session, all branches, in insertion order (unparseable rows skipped). */
  exportMessages(): StoredMessageRecord[] {
    this.#ready();
    return exportSessionMessages(this.#agent, this.sessionId);
  }

  /** A per-session value from `assistant_config`, or `null`. */
  getConfig(key: string): string | null {
    this.#ready();
    return readConfig(this.#agent, this.sessionId, key);
  }

  /** Sets (or with `null` deletes) a per-session value in `assistant_config`. */
  setConfig(key: string, value: string | null): void {
    this.#ready();
    writeConfig(this.#agent, this.sessionId, key, value);
  }

  /** Inserts exported records as they were, atomically (snapshot import, fork). */
  importRecords(records: ImportRecords): void {
    this.#ready();
    importRecords(this.#agent, this.sessionId, records);
    if (records.messages.length > 0) this.#registerOnFirstWrite();
    this.#latestLeaf.forget();
  }

  /** Calls `listener` once per committed write to this session (every session with `allSessions`), from any process. */
  watchChanges(
    listener: ChangeListener,
    options: WatchChangesOptions = {},
  ): Unsubscribe {
    this.#ready();
    const sessionId = options.allSessions ? null : this.sessionId;
    return watchSqlChanges(
      this.#agent,
      { sessionId, after: options.after, onStart: options.onStart },
      listener,
    );
  }

  // --- Internal helpers ---

  #ready(): void {
    ensureAgentSchema(this.#agent);
  }

  /**
   * After a write that stored a message: gives the session its registry row unless it has one,
   * once per provider object (docs/behavior/manager.md#sessions-written-without-the-manager), so
   * `arbor sessions list`, the server and the studio see sessions written without the manager.
   */
  #registerOnFirstWrite(): void {
    if (this.#registered || this.sessionId === "") return;
    this.#registered = true;
    try {
      registerIfAbsent(
        this.#agent,
        firstWriteSessionInfo(this.sessionId, new Date().toISOString()),
      );
    } catch (error) {
      // The message is what was asked for; a registry table Arbor cannot write must not undo it.
      console.warn(
        `[arbor] Session "${this.sessionId}" could not be registered, so the manager will not list it: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** The message a read starts from: the given id, or the latest leaf for null/undefined/"". */
  #target(leafId: string | null | undefined): string | null {
    return typeof leafId === "string" && leafId.length > 0
      ? leafId
      : this.#latestLeaf.current();
  }
}

// What leaves a method is Arbor's error, the store's own as its cause (sql-errors.ts).
mapSqlErrors(AgentSessionProvider.prototype);
