// The registry of the key-value store: one document per session row (`registry:<id>`), the
// session's config in its own document (`config:<id>`, shared with the provider). Text search is
// the engine's, over the sessions this registry picks (owner and id filters are read here).
import {
  ArborError,
  type CreatedBlockRows,
  type MessageRef,
  type RegistryListOptions,
  type RegistrySearchOptions,
  type SearchResult,
  type SessionInfo,
  type SessionInfoPatch,
  type SessionRegistry,
  type SummaryHit,
} from "arbor-memory/session";
import { blocksKey, type BlockVersions } from "./kv-context.js";
import {
  configKey,
  registryKey,
  sessionKey,
  type RegistryDoc,
  type SessionDoc,
} from "./kv-documents.js";
import type { KvStore } from "./kv-store.js";

export class KvSessionRegistry implements SessionRegistry {
  constructor(private readonly store: KvStore) {}

  async insert(info: SessionInfo): Promise<void> {
    await this.insertWithConfig(info, {});
  }

  /** The row and its config entries in one write: refused before anything is set. */
  insertWithConfig(
    info: SessionInfo,
    config: Readonly<Record<string, string>>,
  ): Promise<void> {
    return this.store.exclusive(async () => {
      // As a primary key does: a second row for one id is refused, never merged.
      if (this.store.read(registryKey(info.id)))
        throw new ArborError(
          "SESSION_EXISTS",
          `Session "${info.id}" already exists`,
        );
      // The engine registers a session on its own first write: its row only scopes searches.
      if (!(await this.store.engine.registry.get(info.id)))
        await this.store.engine.registry.insert(info);
      this.store.write(registryKey(info.id), info);
      if (Object.keys(config).length > 0)
        this.store.write(configKey(info.id), {
          ...this.config(info.id),
          ...config,
        });
    });
  }

  get(id: string): SessionInfo | null {
    return this.store.read<RegistryDoc>(registryKey(id));
  }

  list(options: RegistryListOptions): SessionInfo[] {
    const owned = this.rows(options.ownerId);
    const listed = new Set(owned.map((row) => row.id));
    const parent = options.parentSessionId;
    // The top level (`null`): no parent, or one the listing does not hold.
    const rows = owned
      .filter((row) =>
        parent === undefined
          ? true
          : parent === null
            ? row.parent_session_id === null ||
              !listed.has(row.parent_session_id)
            : row.parent_session_id === parent,
      )
      .sort(compareListOrder);
    const after = options.after;
    const start = after
      ? rows.filter((row) => compareListOrder(row, after) <= 0).length
      : 0;
    return rows.slice(
      start,
      options.limit === undefined ? undefined : start + options.limit,
    );
  }

  update(id: string, patch: SessionInfoPatch): boolean {
    const row = this.get(id);
    if (!row) return false;
    this.store.write(registryKey(id), { ...row, ...patch });
    return true;
  }

  addUsage(
    id: string,
    inputTokens: number,
    outputTokens: number,
    cost: number,
    at: string,
  ): boolean {
    const row = this.get(id);
    if (!row) return false;
    row.input_tokens += inputTokens;
    row.output_tokens += outputTokens;
    row.estimated_cost += cost;
    row.updated_at = at;
    this.store.write(registryKey(id), row);
    return true;
  }

  touch(id: string, at: string): void {
    const row = this.get(id);
    if (row) this.store.write(registryKey(id), { ...row, updated_at: at });
  }

  count(): number {
    return this.store.keys("registry:").length;
  }

  getConfig(sessionId: string, key: string): string | null {
    return this.config(sessionId)[key] ?? null;
  }

  setConfig(sessionId: string, key: string, value: string): void {
    this.store.write(configKey(sessionId), {
      ...this.config(sessionId),
      [key]: value,
    });
  }

  setConfigIfAbsent(sessionId: string, key: string, value: string): boolean {
    const config = this.config(sessionId);
    if (key in config) return false;
    this.store.write(configKey(sessionId), { ...config, [key]: value });
    return true;
  }

  listConfig(sessionId: string, prefix: string): Record<string, string> {
    return Object.fromEntries(
      Object.entries(this.config(sessionId))
        .filter(([key]) => key.startsWith(prefix))
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  }

  async search(
    query: string,
    options: RegistrySearchOptions,
  ): Promise<SearchResult[]> {
    const scoped = this.scoped(options);
    if (scoped.sessionIds!.length === 0) return [];
    return this.store.engine.registry.search(query, scoped);
  }

  /** Which of the messages open their sessions (no parent): one read of each session's document. */
  openings(messages: ReadonlyArray<MessageRef>): MessageRef[] {
    const docs = new Map<string, SessionDoc | null>();
    return messages.filter(({ sessionId, id }) => {
      if (!docs.has(sessionId))
        docs.set(sessionId, this.store.read<SessionDoc>(sessionKey(sessionId)));
      return docs.get(sessionId)?.rows[id]?.parentId === null;
    });
  }

  /** Overlays whose summary matches the query (explained search), the engine's ranking. */
  async searchSummaries(
    query: string,
    options: RegistrySearchOptions,
  ): Promise<SummaryHit[]> {
    const scoped = this.scoped(options);
    if (scoped.sessionIds!.length === 0) return [];
    return (
      (await this.store.engine.registry.searchSummaries?.(query, scoped)) ?? []
    );
  }

  /** Claimed, the label's earlier rows dropped and the change recorded, under the write lock. */
  createBlock(
    sessionId: string,
    block: CreatedBlockRows,
    definition: string,
  ): Promise<boolean> {
    return this.store.exclusive(() => {
      if (!this.setConfigIfAbsent(sessionId, block.configKey, definition))
        return false;
      this.dropBlockRows(sessionId, block);
      return true;
    });
  }

  /** The definition, the content document and the label's history, then the change: one write. */
  deleteBlock(sessionId: string, block: CreatedBlockRows): Promise<boolean> {
    return this.store.exclusive(() => {
      const { [block.configKey]: found, ...rest } = this.config(sessionId);
      if (found === undefined) return false;
      this.store.write(configKey(sessionId), rest);
      this.dropBlockRows(sessionId, block);
      return true;
    });
  }

  deleteSession(id: string, contextKeys: readonly string[]): Promise<boolean> {
    return this.store.exclusive(async () => {
      if (!this.get(id)) return false;
      await this.store.engine.registry.deleteSession(id, []);
      this.store.delete(registryKey(id));
      this.store.delete(sessionKey(id));
      this.store.delete(configKey(id));
      this.store.delete(blocksKey(id));
      this.store.delete(`stream:${id}`);
      for (const key of contextKeys) this.store.delete(`context:${key}`);
      return true;
    });
  }

  // --- Internal helpers ---

  private dropBlockRows(sessionId: string, block: CreatedBlockRows): void {
    this.store.delete(`context:${block.contextKey}`);
    const versions = this.store.read<BlockVersions>(blocksKey(sessionId));
    if (versions && block.label in versions) {
      const { [block.label]: _dropped, ...rest } = versions;
      this.store.write(blocksKey(sessionId), rest);
    }
    this.store.changes.record(sessionId, "block", [block.label]);
  }

  /** The search options for the engine: the sessions this registry picks, by id and owner. */
  private scoped(options: RegistrySearchOptions): RegistrySearchOptions {
    const wanted = options.sessionIds ? new Set(options.sessionIds) : null;
    const sessionIds = this.rows(options.ownerId)
      .map((row) => row.id)
      .filter((id) => !wanted || wanted.has(id));
    const { ownerId: _owner, ...rest } = options;
    return { ...rest, sessionIds };
  }

  private rows(ownerId: string | undefined): SessionInfo[] {
    return this.store
      .keys("registry:")
      .map((key) => this.store.read<RegistryDoc>(key)!)
      .filter(
        (row) =>
          ownerId === undefined || this.getConfig(row.id, "owner") === ownerId,
      );
  }

  private config(sessionId: string): Record<string, string> {
    return this.store.read<Record<string, string>>(configKey(sessionId)) ?? {};
  }
}

/** The list order: `updated_at` desc, then `created_at` desc, then `id` asc. */
function compareListOrder(
  a: { updated_at: string; created_at: string; id: string },
  b: { updated_at: string; created_at: string; id: string },
): number {
  if (a.updated_at !== b.updated_at)
    return a.updated_at < b.updated_at ? 1 : -1;
  if (a.created_at !== b.created_at)
    return a.created_at < b.created_at ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export type { SessionDoc };
