import { ArborError } from "../../session/errors/index.js";
import { queryTerms } from "../../session/text/search-terms.js";
import type { MemoryStore } from "./memory-store.js";
import { searchText } from "./memory-search.js";
import { combinedCorpus, type MemoryTextIndex } from "./memory-text-index.js";
import type { SessionInfo } from "../../session/contracts/session-info.js";
import type { SearchResult } from "../../session/contracts/types.js";
import { publishMemoryChange } from "./memory-changes.js";
import {
  compareListOrder,
  type CreatedBlockRows,
  type MessageRef,
  type RegistryListOptions,
  type RegistrySearchOptions,
  type SessionInfoPatch,
  type SessionListing,
  type SessionRegistry,
  type SummaryHit,
} from "../../session/contracts/registry.js";

/** The config key prefix of metadata entries (the manager's `meta:`). */
const METADATA_PREFIX = "meta:";

/** The registry of an in-memory store: rows and config kept beside the sessions' messages. */
export class InMemorySessionRegistry implements SessionRegistry {
  constructor(private readonly store: MemoryStore) {}

  insert(info: SessionInfo): void {
    // As the SQL tables' primary key does: a second row for one id is refused, never merged.
    if (this.store.registry.has(info.id))
      throw new ArborError(
        "SESSION_EXISTS",
        `Session "${info.id}" already exists`,
      );
    this.store.registry.set(info.id, { ...info });
  }

  /** The row and its config entries: `insert` refuses before anything is set, so all or nothing. */
  insertWithConfig(
    info: SessionInfo,
    config: Readonly<Record<string, string>>,
  ): void {
    this.insert(info);
    for (const [key, value] of Object.entries(config))
      this.setConfig(info.id, key, value);
  }

  get(id: string): SessionInfo | null {
    const row = this.store.registry.get(id);
    return row ? { ...row } : null;
  }

  getMany(ids: readonly string[]): SessionInfo[] {
    return ids.flatMap((id) => {
      const row = this.store.registry.get(id);
      return row ? [{ ...row }] : [];
    });
  }

  openings(messages: ReadonlyArray<MessageRef>): MessageRef[] {
    return messages.filter(
      ({ sessionId, id }) =>
        this.store.peek(sessionId)?.rows.get(id)?.parentId === null,
    );
  }

  list(options: RegistryListOptions): SessionInfo[] {
    const listed = (id: string) =>
      options.ownerId === undefined ||
      this.getConfig(id, "owner") === options.ownerId;
    const parent = options.parentSessionId;
    const owned = [...this.store.registry.values()].filter(
      (row) =>
        listed(row.id) &&
        (parent === undefined ||
          (parent === null
            ? // The top level: no parent, or one the listing does not hold.
              row.parent_session_id === null ||
              !this.store.registry.has(row.parent_session_id) ||
              !listed(row.parent_session_id)
            : row.parent_session_id === parent)),
    );
    const sorted = owned.sort(compareListOrder);
    const after = options.after;
    const start = after
      ? sorted.filter((row) => compareListOrder(row, after) <= 0).length
      : 0;
    const page = sorted.slice(
      start,
      options.limit === undefined ? undefined : start + options.limit,
    );
    return page.map((row) => ({ ...row }));
  }

  listDetailed(options: RegistryListOptions): SessionListing[] {
    const children = new Map<string, number>();
    for (const row of this.store.registry.values())
      if (
        row.parent_session_id !== null &&
        (options.ownerId === undefined ||
          this.getConfig(row.id, "owner") === options.ownerId)
      )
        children.set(
          row.parent_session_id,
          (children.get(row.parent_session_id) ?? 0) + 1,
        );
    return this.list(options).map((info) => ({
      info,
      ownerId: this.getConfig(info.id, "owner"),
      metadata: Object.fromEntries(
        Object.entries(this.listConfig(info.id, METADATA_PREFIX)).map(
          ([key, value]) => [key.slice(METADATA_PREFIX.length), value],
        ),
      ),
      messageCount: this.store.peek(info.id)?.ordered.length ?? 0,
      childCount: children.get(info.id) ?? 0,
    }));
  }

  update(id: string, patch: SessionInfoPatch): boolean {
    const row = this.store.registry.get(id);
    if (!row) return false;
    Object.assign(row, patch);
    return true;
  }

  addUsage(
    id: string,
    inputTokens: number,
    outputTokens: number,
    cost: number,
    at: string,
  ): boolean {
    const row = this.store.registry.get(id);
    if (!row) return false;
    row.input_tokens += inputTokens;
    row.output_tokens += outputTokens;
    row.estimated_cost += cost;
    row.updated_at = at;
    return true;
  }

  touch(id: string, at: string): void {
    const row = this.store.registry.get(id);
    if (row) row.updated_at = at;
  }

  count(): number {
    return this.store.registry.size;
  }

  getConfig(sessionId: string, key: string): string | null {
    return this.store.session(sessionId).config.get(key) ?? null;
  }

  setConfig(sessionId: string, key: string, value: string): void {
    this.store.session(sessionId).config.set(key, value);
  }

  setConfigIfAbsent(sessionId: string, key: string, value: string): boolean {
    const config = this.store.session(sessionId).config;
    if (config.has(key)) return false;
    config.set(key, value);
    return true;
  }

  listConfig(sessionId: string, prefix: string): Record<string, string> {
    const config =
      this.store.peek(sessionId)?.config ?? new Map<string, string>();
    return Object.fromEntries(
      [...config]
        .filter(([key]) => key.startsWith(prefix))
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  }

  search(query: string, options: RegistrySearchOptions): SearchResult[] {
    if (queryTerms(query).length === 0) return [];
    const wanted = options.sessionIds ? new Set(options.sessionIds) : null;
    const sessionOf = new Map<MemoryTextIndex, string>();
    for (const sessionId of this.store.registry.keys()) {
      if (wanted && !wanted.has(sessionId)) continue;
      if (
        options.ownerId !== undefined &&
        this.getConfig(sessionId, "owner") !== options.ownerId
      )
        continue;
      const data = this.store.peek(sessionId);
      if (data) sessionOf.set(data.textIndex, sessionId);
    }
    // One BM25 over the rows of every searched session, so term weights compare across them.
    const corpus = combinedCorpus(
      [...sessionOf.keys()].map((index) => index.current()),
    );
    return searchText(corpus, query, options.limit, options).map(
      ({ row, index }) => ({
        id: row.id,
        role: row.role,
        content: row.text,
        createdAt: row.createdAt,
        sessionId: sessionOf.get(index) ?? "",
      }),
    );
  }

  /**
   * Overlays whose summary matches the query, newest first (explained manager search). Loaded
   * on first use, like the rest of explained search.
   */
  async searchSummaries(
    query: string,
    options: RegistrySearchOptions,
  ): Promise<SummaryHit[]> {
    const { searchMemorySummaries } =
      await import("./memory-summary-search.js");
    return searchMemorySummaries(this.store, query, options, (id) =>
      this.getConfig(id, "owner"),
    );
  }

  /** Synchronous, so atomic: claimed, the label's earlier rows dropped, the change published. */
  createBlock(
    sessionId: string,
    block: CreatedBlockRows,
    definition: string,
  ): boolean {
    if (!this.setConfigIfAbsent(sessionId, block.configKey, definition))
      return false;
    this.dropBlockRows(sessionId, block);
    return true;
  }

  /** Synchronous, so atomic: the definition, the content row and the history, then the change. */
  deleteBlock(sessionId: string, block: CreatedBlockRows): boolean {
    if (!this.store.peek(sessionId)?.config.delete(block.configKey))
      return false;
    this.dropBlockRows(sessionId, block);
    return true;
  }

  deleteSession(id: string, contextKeys: readonly string[]): boolean {
    if (!this.store.registry.delete(id)) return false;
    this.store.attachments.releaseSession(id);
    this.store.sessions.delete(id);
    this.store.blockHistories.delete(id);
    for (const key of contextKeys) this.store.contextRows.delete(key);
    return true;
  }

  // --- Internal helpers ---

  private dropBlockRows(sessionId: string, block: CreatedBlockRows): void {
    this.store.contextRows.delete(block.contextKey);
    this.store.blockHistories.get(sessionId)?.forget(block.label);
    publishMemoryChange(this.store, sessionId, "block", [block.label]);
  }
}
