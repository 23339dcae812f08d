// One session of the key-value store (`SessionProvider`): the session's messages and overlays are
// one document (`session:<id>`), its config another (`config:<id>`, shared with the registry).
// Every write runs under the store's write lock, mirrors what it changed into the search engine,
// and records its change in the store's change log once applied.
import {
  applyCompactions,
  assertCompactionArguments,
  type BackendEmbeddings,
  type ChangeListener,
  type ChangeType,
  type CompactionMeta,
  type HistoryRowStat,
  type ImportRecords,
  type RecentHistoryResult,
  type MessageWrite,
  type SearchResult,
  type SessionMessage,
  type SessionInfo,
  type SessionProvider,
  type StoredCompaction,
  type StoredMessageRecord,
  type TextSearchOptions,
  type Unsubscribe,
  type WatchChangesOptions,
  type WriteMessagesOptions,
  type WriteMessagesResult,
} from "arbor-memory/session";
import { recentHistory, rowStats } from "./kv-windows.js";
import { KvBlockHistory, KvContextProvider } from "./kv-context.js";
import type { KvStore } from "./kv-store.js";
import {
  configKey,
  registryKey,
  sessionKey,
  type SessionDoc,
} from "./kv-documents.js";
import {
  pathIds,
  latestLeafId,
  orderedRows,
  reviveMessage,
} from "./kv-tree.js";
import { ArborError } from "arbor-memory/session";

export class KvSessionProvider implements SessionProvider {
  constructor(
    private readonly store: KvStore,
    readonly sessionId: string,
  ) {}

  get storeIdentity(): object {
    return this.store;
  }

  forSession(sessionId: string): KvSessionProvider {
    return new KvSessionProvider(this.store, sessionId);
  }

  getMessage(id: string): SessionMessage | null {
    const row = this.doc().rows[id];
    return row ? reviveMessage(row.json) : null;
  }

  getHistory(leafId?: string | null): SessionMessage[] {
    const doc = this.doc();
    const path = pathIds(doc, leafId).map((id) =>
      reviveMessage(doc.rows[id]!.json),
    );
    return applyCompactions(path, doc.overlays);
  }

  getLatestLeaf(): SessionMessage | null {
    const doc = this.doc();
    const id = latestLeafId(doc);
    return id === null ? null : reviveMessage(doc.rows[id]!.json);
  }

  getLatestLeafId(): string | null {
    return latestLeafId(this.doc());
  }

  getBranches(messageId: string): SessionMessage[] {
    return orderedRows(this.doc())
      .filter(([, row]) => row.parentId === messageId)
      .map(([, row]) => reviveMessage(row.json));
  }

  getPathLength(leafId?: string | null): number {
    return pathIds(this.doc(), leafId).length;
  }

  getRecentHistory(
    leafId: string | null | undefined,
    maxContentBytes: number,
    minRecentMessages?: number,
  ): RecentHistoryResult {
    return recentHistory(
      this.doc(),
      leafId,
      maxContentBytes,
      minRecentMessages,
    );
  }

  getHistoryRowStats(leafId?: string | null): HistoryRowStat[] {
    return rowStats(this.doc(), leafId);
  }

  countMessages(): number {
    return Object.keys(this.doc().rows).length;
  }

  exportMessages(): StoredMessageRecord[] {
    return orderedRows(this.doc()).map(([, row]) => ({
      message: reviveMessage(row.json),
      parentId: row.parentId,
      createdAt: row.createdAt,
    }));
  }

  /** The one write: a chain, each under the one before, the first under `parentId`. */
  writeMessages(
    messages: readonly MessageWrite[],
    { parentId }: WriteMessagesOptions = {},
  ): Promise<WriteMessagesResult> {
    return this.store.exclusive(async () => {
      const doc = this.doc();
      let parent: string | null = null;
      if (parentId === undefined) parent = latestLeafId(doc);
      else if (parentId !== null && doc.rows[parentId]) parent = parentId;
      const firstParentId = parent;
      const createdAt = new Date().toISOString();
      const records: StoredMessageRecord[] = [];
      const jsons: string[] = [];
      const taken = new Set(Object.keys(doc.rows));
      const inserted = messages.map(({ message, json }) => {
        const isNew = !taken.has(message.id);
        if (isNew) {
          taken.add(message.id);
          records.push({ message, parentId: parent, createdAt });
          jsons.push(json ?? JSON.stringify(message));
        }
        parent = message.id; // the next one goes under it, taken or not
        return isNew;
      });
      if (records.length === 0) return { inserted, firstParentId };
      // The engine checks each message first (INVALID_MESSAGE): a batch it refuses writes nothing.
      await this.engine().importRecords!({
        messages: records,
        compactions: [],
      });
      records.forEach((record, index) => {
        doc.rows[record.message.id] = {
          json: jsons[index]!,
          parentId: record.parentId,
          seq: this.store.nextSeq(),
          createdAt,
        };
      });
      const registryTouched = await this.register(createdAt);
      this.save(
        doc,
        "append",
        records.map((record) => record.message.id),
      );
      return { inserted, firstParentId, registryTouched };
    });
  }

  updateMessage(message: SessionMessage, json?: string): Promise<void> {
    return this.store.exclusive(async () => {
      const doc = this.doc();
      const row = doc.rows[message.id];
      if (!row) return;
      await this.engine().updateMessage(message, json);
      row.json = json ?? JSON.stringify(message);
      this.save(doc, "update", [message.id]);
    });
  }

  deleteMessages(ids: readonly string[]): Promise<void> {
    return this.store.exclusive(async () => {
      const doc = this.doc();
      const doomed = new Set(ids.filter((id) => doc.rows[id]));
      if (doomed.size === 0) return;
      // Overlays first: their ranges are read on the tree before the delete.
      doc.overlays = doc.overlays.flatMap((overlay) => {
        const { fromMessageId: from, toMessageId: to } = overlay;
        if (!doomed.has(from) && !doomed.has(to)) return [overlay];
        const path = pathIds(doc, to);
        const start = path.indexOf(from);
        const kept =
          start < 0 ? [] : path.slice(start).filter((id) => !doomed.has(id));
        return kept.length === 0
          ? []
          : [
              {
                ...overlay,
                fromMessageId: kept[0]!,
                toMessageId: kept.at(-1)!,
              },
            ];
      });
      // Survivors move up to the nearest surviving ancestor.
      for (const row of Object.values(doc.rows)) {
        let up = row.parentId;
        while (up !== null && doomed.has(up)) up = doc.rows[up]!.parentId;
        row.parentId = up;
      }
      for (const id of doomed) delete doc.rows[id];
      await this.engine().deleteMessages([...doomed]);
      this.save(doc, "delete", [...doomed]);
    });
  }

  clearMessages(): Promise<void> {
    return this.store.exclusive(async () => {
      await this.engine().clearMessages();
      this.store.delete(sessionKey(this.sessionId));
      this.store.changes.record(this.sessionId, "clear", []);
    });
  }

  addCompaction(
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): Promise<StoredCompaction> {
    // The shared rule: non-empty string summary and ids, or a TypeError (INVALID_ARGUMENT).
    assertCompactionArguments(summary, fromMessageId, toMessageId);
    return this.store.exclusive(async () => {
      const doc = this.doc();
      const overlay: StoredCompaction = {
        id: crypto.randomUUID(),
        summary,
        fromMessageId,
        toMessageId,
        createdAt: new Date().toISOString(),
        ...(meta ? { meta } : {}),
      };
      // Summaries are searched too (explained search): the engine keeps the overlay, same id.
      await this.engine().importRecords!({
        messages: [],
        compactions: [overlay],
      });
      doc.overlays.push(overlay);
      this.save(doc, "compaction", [overlay.id]);
      return overlay;
    });
  }

  getCompactions(): StoredCompaction[] {
    return this.doc().overlays;
  }

  deleteCompaction(id: string): Promise<boolean> {
    return this.store.exclusive(async () => {
      const doc = this.doc();
      const before = doc.overlays.length;
      doc.overlays = doc.overlays.filter((overlay) => overlay.id !== id);
      if (doc.overlays.length === before) return false;
      await this.engine().deleteCompaction!(id);
      this.save(doc, "compaction", [id]);
      return true;
    });
  }

  importRecords(records: ImportRecords): Promise<void> {
    return this.store.exclusive(async () => {
      const doc = records.replace ? emptyDoc() : this.doc();
      const taken = records.messages.find(
        ({ message }) => doc.rows[message.id],
      );
      if (taken)
        throw new ArborError(
          "MESSAGE_EXISTS",
          `[kv] Message ${taken.message.id} already exists in session ${this.sessionId}`,
        );
      await this.engine().importRecords!(records);
      for (const record of records.messages)
        doc.rows[record.message.id] = {
          json: JSON.stringify(record.message),
          parentId: record.parentId,
          seq: this.store.nextSeq(),
          createdAt: record.createdAt,
        };
      doc.overlays.push(...records.compactions);
      if (records.messages.length > 0)
        await this.register(new Date().toISOString());
      this.save(
        doc,
        "import",
        records.messages.map(({ message }) => message.id),
      );
    });
  }

  searchMessages(
    query: string,
    limit?: number,
    options?: TextSearchOptions,
  ): Promise<SearchResult[]> {
    return Promise.resolve(
      this.engine().searchMessages!(query, limit, options),
    );
  }

  getConfig(key: string): string | null {
    return this.config()[key] ?? null;
  }

  setConfig(key: string, value: string | null): void {
    const config = this.config();
    if (value === null) delete config[key];
    else config[key] = value;
    this.store.write(configKey(this.sessionId), config);
  }

  createContextProvider(key: string): KvContextProvider {
    return new KvContextProvider(this.store, key);
  }

  createBlockHistory(): KvBlockHistory {
    return new KvBlockHistory(this.store, this.sessionId);
  }

  embeddings(): BackendEmbeddings {
    return this.store.embeddings;
  }

  watchChanges(
    listener: ChangeListener,
    options: WatchChangesOptions = {},
  ): Unsubscribe {
    return this.store.changes.watch(listener, {
      sessionId: options.allSessions ? null : this.sessionId,
      ...(options.after !== undefined ? { after: options.after } : {}),
      ...(options.onStart ? { onStart: options.onStart } : {}),
    });
  }

  // --- Internal helpers ---

  /**
   * A session has a registry row once it stores a message, however it was written
   * (docs/behavior/manager.md#sessions-written-without-the-manager): the first write inserts one
   * named by the id; a row that exists gets its `updated_at`, in the same write. The unnamed
   * session `""` gets none. `true` when the registry was written.
   */
  private async register(at: string): Promise<boolean> {
    if (this.sessionId === "") return false;
    const row = this.store.read<SessionInfo>(registryKey(this.sessionId));
    if (!row) {
      const info: SessionInfo = {
        id: this.sessionId,
        name: this.sessionId,
        parent_session_id: null,
        model: null,
        source: null,
        input_tokens: 0,
        output_tokens: 0,
        estimated_cost: 0,
        end_reason: null,
        created_at: at,
        updated_at: at,
      };
      // The engine registers the session on its own first write; its row only scopes searches.
      if (!(await this.store.engine.registry.get(this.sessionId)))
        await this.store.engine.registry.insert(info);
      this.store.write(registryKey(this.sessionId), info);
    } else
      this.store.write(registryKey(this.sessionId), { ...row, updated_at: at });
    return true;
  }

  private doc(): SessionDoc {
    return (
      this.store.read<SessionDoc>(sessionKey(this.sessionId)) ?? emptyDoc()
    );
  }

  private config(): Record<string, string> {
    return (
      this.store.read<Record<string, string>>(configKey(this.sessionId)) ?? {}
    );
  }

  private engine(): SessionProvider {
    return this.store.engine.session(this.sessionId);
  }

  /** Puts the document back whole, then tells the change log (a listener reads the new state). */
  private save(doc: SessionDoc, type: ChangeType, ids: string[]): void {
    this.store.write(sessionKey(this.sessionId), doc);
    this.store.changes.record(this.sessionId, type, ids);
  }
}

function emptyDoc(): SessionDoc {
  return { rows: {}, overlays: [] };
}
