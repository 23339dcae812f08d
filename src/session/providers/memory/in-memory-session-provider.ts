import { assertCompactionArguments } from "../../core/compaction-args.js";
import { historyFromPath, messagesFromSpans } from "../../core/path-history.js";
import { chooseRecentWindow } from "../../core/recent-window.js";
import {
  decodeMessage,
  encodeMessage,
  noteStoredParent,
  searchableText,
} from "../../core/message-codec.js";
import { planTreeRepair } from "../../core/tree-repair.js";
import { utf8Length } from "../../core/utf8.js";
import { walkToRoot } from "../../core/walk-path.js";
import type {
  ImportRecords,
  SessionProvider,
  StoredMessageRecord,
} from "../../contracts/provider.js";
import { ArborError } from "../../errors/index.js";
import type {
  CompactionMeta,
  HistoryRowStat,
  RecentHistoryResult,
  SearchResult,
  SessionMessage,
  StoredCompaction,
} from "../../contracts/types.js";
import type { InMemoryBlockHistory } from "./memory-block-history.js";
import { InMemoryContextProvider } from "./in-memory-context-provider.js";
import {
  MemoryStore,
  type MemoryRow,
  type MemorySessionData,
} from "./memory-store.js";
import { searchRows } from "./memory-search.js";
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
  private readonly store: MemoryStore;

  constructor(
    options: InMemorySessionProviderOptions = {},
    store: MemoryStore = new MemoryStore(),
  ) {
    this.sessionId = options.sessionId ?? "";
    this.store = store;
    this.storeIdentity = store;
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
    return row ? decodeMessage(row.json) : null;
  }

  getHistory(leafId?: string | null): SessionMessage[] {
    const data = this.data();
    if (!data) return [];
    const path = this.pathRows(data, leafId);
    return historyFromPath(
      path.map((row) => row.id),
      (index) => decodeMessage(path[index]!.json),
      data.compactions,
    );
  }

  getLatestLeaf(): SessionMessage | null {
    const data = this.data();
    const row = data ? latestLeafRow(data) : null;
    return row ? decodeMessage(row.json) : null;
  }

  getLatestLeafId(): string | null {
    const data = this.data();
    return data ? (latestLeafRow(data)?.id ?? null) : null;
  }

  getBranches(messageId: string): SessionMessage[] {
    const children = this.data()?.children.get(messageId) ?? [];
    return children.flatMap((row) => decodeMessage(row.json) ?? []);
  }

  getPathLength(leafId?: string | null): number {
    const data = this.data();
    return data ? this.pathRows(data, leafId).length : 0;
  }

  appendMessage(message: SessionMessage, parentId?: string | null): boolean {
    const json = encodeMessage(message);
    const data = this.store.session(this.sessionId);
    if (data.rows.has(message.id)) return false;
    let parent: string | null;
    if (parentId === undefined) parent = latestLeafRow(data)?.id ?? null;
    else if (parentId === null) parent = null;
    else parent = data.rows.has(parentId) ? parentId : null;

    const row: MemoryRow = {
      seq: this.store.takeSeq(),
      id: message.id,
      parentId: parent,
      role: message.role,
      json,
      createdAt: new Date().toISOString(),
      text: searchableText(message),
    };
    data.rows.set(row.id, row);
    data.ordered.push(row);
    if (parent !== null) pushChild(data, parent, row);
    data.latestLeaf = row;
    noteStoredParent(message, parent);
    return true;
  }

  updateMessage(message: SessionMessage): void {
    const json = encodeMessage(message);
    const row = this.data()?.rows.get(message.id);
    if (!row) return;
    row.json = json;
    row.role = message.role;
    row.text = searchableText(message);
    row.searchCache = undefined;
  }

  deleteMessages(ids: readonly string[]): void {
    const data = this.data();
    if (!data) return;
    const deleted = new Set(ids.filter((id) => data.rows.has(id)));
    if (deleted.size === 0) return;
    const plan = planTreeRepair({
      deleted,
      parentOf: (id) => data.rows.get(id)?.parentId,
      childrenOf: (id) => (data.children.get(id) ?? []).map((row) => row.id),
      overlays: data.compactions,
    });

    for (const id of deleted) {
      const row = data.rows.get(id)!;
      data.rows.delete(id);
      data.children.delete(id);
      if (row.parentId !== null) data.removeChild(row.parentId, id);
    }
    for (const { id, parentId } of plan.reparent) {
      const row = data.rows.get(id)!;
      row.parentId = parentId;
      if (parentId !== null) pushChild(data, parentId, row);
    }
    data.ordered = data.ordered.filter((row) => !deleted.has(row.id));
    const moves = new Map(plan.moveOverlays.map((move) => [move.id, move]));
    const dropped = new Set(plan.deleteOverlays);
    data.compactions = data.compactions
      .filter((overlay) => !dropped.has(overlay.id))
      .map((overlay) => {
        const move = moves.get(overlay.id);
        return move ? { ...overlay, ...move } : overlay;
      });
    data.latestLeaf = undefined;
  }

  clearMessages(): void {
    const data = this.data();
    if (!data) return;
    data.rows.clear();
    data.children.clear();
    data.ordered = [];
    data.compactions = [];
    data.latestLeaf = null;
  }

  addCompaction(
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): StoredCompaction {
    assertCompactionArguments(summary, fromMessageId, toMessageId, "memory");
    const overlay: StoredCompaction = {
      id: crypto.randomUUID(),
      summary,
      fromMessageId,
      toMessageId,
      createdAt: new Date().toISOString(),
      ...(meta ? { meta: { ...meta } } : {}),
    };
    this.store.session(this.sessionId).compactions.push(overlay);
    return structuredClone(overlay);
  }

  getCompactions(): StoredCompaction[] {
    return structuredClone(this.data()?.compactions ?? []);
  }

  deleteCompaction(id: string): boolean {
    const data = this.data();
    if (!data) return false;
    const before = data.compactions.length;
    data.compactions = data.compactions.filter((overlay) => overlay.id !== id);
    return data.compactions.length < before;
  }

  searchMessages(query: string, limit?: number): SearchResult[] {
    const data = this.data();
    if (!data) return [];
    return searchRows(data.ordered, query, limit).map((row) => ({
      id: row.id,
      role: row.role,
      content: row.text,
      createdAt: row.createdAt,
    }));
  }

  getHistoryRowStats(leafId?: string | null): HistoryRowStat[] {
    const data = this.data();
    if (!data) return [];
    return this.pathRows(data, leafId).map((row) => ({
      id: row.id,
      role: row.role,
      bytes: utf8Length(row.json),
    }));
  }

  getRecentHistory(
    leafId: string | null | undefined,
    maxContentBytes: number,
    minRecentMessages = 1,
  ): RecentHistoryResult {
    const data = this.data();
    if (!data) return { messages: [], truncated: false, totalContentBytes: 0 };
    const path = this.pathRows(data, leafId);
    const window = chooseRecentWindow(
      path.map((row) => ({ id: row.id, bytes: utf8Length(row.json) })),
      data.compactions,
      maxContentBytes,
      minRecentMessages,
    );
    return {
      messages: messagesFromSpans(window.spans, (index) =>
        decodeMessage(path[index]!.json),
      ),
      truncated: window.truncated,
      totalContentBytes: window.totalContentBytes,
    };
  }

  importRecords(records: ImportRecords): void {
    const data = this.store.session(this.sessionId);
    for (const { message } of records.messages) {
      encodeMessage(message);
      if (!records.replace && data.rows.has(message.id)) {
        throw new ArborError(
          "MESSAGE_EXISTS",
          `[arbor] Message "${message.id}" already exists in session "${this.sessionId}"; import with replace to overwrite`,
        );
      }
    }
    if (records.replace) this.clearMessages();
    for (const { message, parentId, createdAt } of records.messages) {
      const row: MemoryRow = {
        seq: this.store.takeSeq(),
        id: message.id,
        parentId,
        role: message.role,
        json: encodeMessage(message),
        createdAt,
        text: searchableText(message),
      };
      data.rows.set(row.id, row);
      data.ordered.push(row);
      if (parentId !== null) pushChild(data, parentId, row);
    }
    data.compactions.push(...structuredClone(records.compactions));
    data.latestLeaf = undefined;
  }

  exportMessages(): StoredMessageRecord[] {
    return (this.data()?.ordered ?? []).flatMap((row) => {
      const message = decodeMessage(row.json);
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

  private data(): MemorySessionData | undefined {
    return this.store.peek(this.sessionId);
  }

  private pathRows(
    data: MemorySessionData,
    leafId?: string | null,
  ): MemoryRow[] {
    const leaf = leafId ? data.rows.get(leafId) : latestLeafRow(data);
    if (!leaf) return [];
    return walkToRoot(leaf.id, (id) => data.rows.get(id)?.parentId).map((id) =>
      data.rows.get(id)!,
    );
  }
}

function latestLeafRow(data: MemorySessionData): MemoryRow | null {
  if (data.latestLeaf === undefined) {
    data.latestLeaf = null;
    for (let index = data.ordered.length - 1; index >= 0; index--) {
      const row = data.ordered[index]!;
      if (data.childCount(row.id) === 0) {
        data.latestLeaf = row;
        break;
      }
    }
  }
  return data.latestLeaf;
}

function pushChild(
  data: MemorySessionData,
  parentId: string,
  row: MemoryRow,
): void {
  const siblings = data.children.get(parentId);
  if (!siblings) data.children.set(parentId, [row]);
  else if (siblings.length === 0 || siblings.at(-1)!.seq < row.seq)
    siblings.push(row);
  else {
    // Re-parented rows keep insertion order among their new siblings.
    const at = siblings.findIndex((sibling) => sibling.seq > row.seq);
    siblings.splice(at, 0, row);
  }
}
