import { historyFromPath } from "../../session/tree/path-history.js";
import { decodeWithAttachments } from "../../session/messages/attachments.js";
import { utf8Length } from "../../session/encoding/utf8.js";
import { memoryEmbeddings } from "./memory-embedding-access.js";
import type {
  ImportRecords,
  MessageWrite,
  WriteMessagesOptions,
  WriteMessagesResult,
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
import type {
  ChangeListener,
  Unsubscribe,
  WatchChangesOptions,
} from "../../session/contracts/changes.js";
import type { InMemoryBlockHistory } from "./memory-block-history.js";
import { InMemoryContextProvider } from "./memory-context-provider.js";
import {
  MemoryStore,
  type MemoryRow,
  type MemorySessionData,
} from "./memory-store.js";
import { searchText } from "./memory-search.js";
import { memoryChangeFeed } from "./memory-changes.js";
import { latestLeafRow, pathRows } from "./memory-tree.js";
import {
  messagesByIds,
  pathEntries,
  recentHistory,
  rowStats,
} from "./memory-windows.js";
import {
  writeRows,
  clearRows,
  deleteRows,
  importRows,
  updateRow,
} from "./memory-writes.js";
import { insertCompaction, removeCompaction } from "./memory-compactions.js";
import {
  restoreStore,
  snapshotStore,
  type InMemorySessionProviderSnapshot,
} from "./memory-snapshot.js";

export interface InMemorySessionProviderOptions {
  /** The session this provider addresses ("" = no namespace). */
  sessionId?: string;
}

/**
 * A pure-JavaScript message store with the same observable tree, overlay and history semantics
 * as the SQLite store (docs/behavior/storage.md). The whole history lives in the process: ideal for tests and
 * for short-lived agents. Providers made with `forSession()` share one store.
 *
 * @example
 * ```ts
 * const session = Session.create(new InMemorySessionProvider()).withContext("memory");
 * ```
 */
export class InMemorySessionProvider implements SessionProvider {
  readonly sessionId: string;
  readonly storeIdentity: MemoryStore;
  /** Inline file data is kept once per store, apart from the rows. */
  readonly storesAttachments = true;
  /** `writeMessages` honours `requireRegistered` (the registry is in the same store). */
  readonly insertChecksRegistry = true;
  /** `importRecords` honours `reattach`. */
  readonly importReattaches = true;
  private readonly store: MemoryStore;

  constructor(
    options: InMemorySessionProviderOptions = {},
    store: MemoryStore = new MemoryStore(),
  ) {
    this.sessionId = options.sessionId ?? "";
    this.store = store;
    this.storeIdentity = store;
  }

  /** The store's embeddings: exact cosine ranking over maps in this process. */
  embeddings(): BackendEmbeddings {
    return memoryEmbeddings(this.store);
  }

  forSession(sessionId: string): InMemorySessionProvider {
    return new InMemorySessionProvider({ sessionId }, this.store);
  }

  createContextProvider(key: string): InMemoryContextProvider {
    return new InMemoryContextProvider(this.store.contextRows, key);
  }

  getConfig(key: string): string | null {
    return this.data()?.config.get(key) ?? null;
  }

  setConfig(key: string, value: string | null): void {
    const config = this.store.session(this.sessionId).config;
    if (value === null) config.delete(key);
    else config.set(key, value);
  }

  createBlockHistory(): InMemoryBlockHistory {
    return this.store.blockHistory(this.sessionId);
  }

  getMessage(id: string): SessionMessage | null {
    const row = this.data()?.rows.get(id);
    return row ? this.decode(row.json) : null;
  }

  getHistory(leafId?: string | null): SessionMessage[] {
    const data = this.data();
    if (!data) return [];
    const path = pathRows(data, leafId);
    return historyFromPath(
      path.map((row) => row.id),
      (index) => this.decode(path[index]!.json),
      data.compactions,
    );
  }

  getLatestLeaf(): SessionMessage | null {
    const data = this.data();
    const row = data ? latestLeafRow(data) : null;
    return row ? this.decode(row.json) : null;
  }

  getLatestLeafId(): string | null {
    const data = this.data();
    return data ? (latestLeafRow(data)?.id ?? null) : null;
  }

  getBranches(messageId: string): SessionMessage[] {
    const children = this.data()?.children.get(messageId) ?? [];
    return children.flatMap((row) => this.decode(row.json) ?? []);
  }

  getPathLength(leafId?: string | null): number {
    const data = this.data();
    return data ? pathRows(data, leafId).length : 0;
  }

  /** Inserts the message (the seed API's write, over `writeMessages`); `false` when its id is taken. */
  appendMessage(message: SessionMessage, parentId?: string | null): boolean {
    return this.writeMessages([{ message }], { parentId }).inserted[0] === true;
  }

  /** The one write (see `SessionProvider.writeMessages`): the chain is stored before anyone can read. */
  writeMessages(
    messages: readonly MessageWrite[],
    options: WriteMessagesOptions = {},
  ): WriteMessagesResult {
    if (options.requireRegistered && !this.store.registry.has(this.sessionId))
      return {
        inserted: messages.map(() => false),
        firstParentId: null,
        registered: false,
      };
    return writeRows(this.store, this.sessionId, messages, options.parentId);
  }

  updateMessage(message: SessionMessage, json?: string): void {
    updateRow(this.store, this.sessionId, message, json);
  }

  deleteMessages(ids: readonly string[]): void {
    deleteRows(this.store, this.sessionId, ids);
  }

  clearMessages(): void {
    clearRows(this.store, this.sessionId);
  }

  addCompaction(
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): StoredCompaction {
    return insertCompaction(
      this.store,
      this.sessionId,
      summary,
      fromMessageId,
      toMessageId,
      meta,
    );
  }

  getCompactions(): StoredCompaction[] {
    return structuredClone(this.data()?.compactions ?? []);
  }

  deleteCompaction(id: string): boolean {
    return removeCompaction(this.store, this.sessionId, id);
  }

  searchMessages(
    query: string,
    limit?: number,
    options?: TextSearchOptions,
  ): SearchResult[] {
    const data = this.data();
    if (!data) return [];
    return searchText(data.textIndex.current(), query, limit, options).map(
      ({ row }) => ({
        id: row.id,
        role: row.role,
        content: row.text,
        createdAt: row.createdAt,
      }),
    );
  }

  getHistoryRowStats(leafId?: string | null): HistoryRowStat[] {
    const data = this.data();
    return data
      ? rowStats(pathRows(data, leafId), (row) => this.rowBytes(row))
      : [];
  }

  /** `{ id, bytes }` per row on the path, root first (streamed history). */
  getPathIds(leafId?: string | null): PathEntry[] {
    const data = this.data();
    return data
      ? pathEntries(pathRows(data, leafId), (row) => this.rowBytes(row))
      : [];
  }

  /** The ids on the path, in no order (explained search). */
  getPathIdSet(leafId?: string | null): ReadonlySet<string> {
    const data = this.data();
    return new Set(data ? pathRows(data, leafId).map((row) => row.id) : []);
  }

  /** The stored messages with these ids, in the given order; `null` for unknown ids. */
  getMessagesByIds(ids: readonly string[]): Array<SessionMessage | null> {
    return messagesByIds(this.data(), ids, (json) => this.decode(json));
  }

  getRecentHistory(
    leafId: string | null | undefined,
    maxContentBytes: number,
    minRecentMessages = 1,
  ): RecentHistoryResult {
    const data = this.data();
    if (!data) return { messages: [], truncated: false, totalContentBytes: 0 };
    return recentHistory(
      pathRows(data, leafId),
      data.compactions,
      { maxContentBytes, minRecentMessages },
      (row) => this.rowBytes(row),
      (json) => this.decode(json),
    );
  }

  importRecords(records: ImportRecords): void {
    importRows(this.store, this.sessionId, records);
  }

  /** Calls `listener` once per write to this session (every session with `allSessions`), in order. */
  watchChanges(
    listener: ChangeListener,
    options: WatchChangesOptions = {},
  ): Unsubscribe {
    return memoryChangeFeed(this.store).watch(listener, {
      sessionId: options.allSessions ? null : this.sessionId,
      after: options.after,
      onStart: options.onStart,
    });
  }

  /** Memory stores are created by this process, so they count with the current default. */
  getTokenEstimate(): StoreTokenEstimate {
    return "multilingual";
  }

  countMessages(): number {
    return this.data()?.ordered.length ?? 0;
  }

  exportMessages(): StoredMessageRecord[] {
    return (this.data()?.ordered ?? []).flatMap((row) => {
      const message = this.decode(row.json);
      return message
        ? [{ message, parentId: row.parentId, createdAt: row.createdAt }]
        : [];
    });
  }

  /** The whole store (every session of `forSession()`) as JSON data; see docs/sessions.md. */
  toJSON(): InMemorySessionProviderSnapshot {
    return snapshotStore(this.store, this.sessionId);
  }

  /**
   * A provider over a copy of the store `toJSON()` saw, given as the object or its JSON text.
   * Throws `INVALID_SNAPSHOT` when the input is malformed.
   */
  static fromJSON(snapshot: unknown): InMemorySessionProvider {
    const { store, sessionId } = restoreStore(snapshot);
    return new InMemorySessionProvider({ sessionId }, store);
  }

  // --- Internal helpers ---

  /** A stored row as read: attachments restored (docs/behavior/storage.md#attachments). */
  private decode(json: string): SessionMessage | null {
    return decodeWithAttachments(json, (hash) =>
      this.store.attachments.get(hash),
    );
  }

  /** What a row costs on read: its JSON plus what its attachments add back. */
  private rowBytes(row: MemoryRow): number {
    return (
      utf8Length(row.json) +
      this.store.attachments.extraBytes(this.sessionId, row.id)
    );
  }

  private data(): MemorySessionData | undefined {
    return this.store.peek(this.sessionId);
  }
}
