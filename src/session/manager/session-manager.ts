import { z } from "zod";
import type {
  AnyContextProvider,
  SearchProvider,
  WritableContextProvider,
} from "../contracts/context-provider.js";
import type { ArborTool } from "../context/tools/index.js";
import type { SessionContextOptions } from "../context/types.js";
import { queryTerms } from "../core/search-terms.js";
import {
  ArborError,
  ArborTypeError,
  SessionAccessError,
} from "../errors/index.js";
import { InMemorySessionProvider } from "../providers/memory/index.js";
import { MemoryStore } from "../providers/memory/memory-store.js";
import {
  isPostgresClient,
  type PostgresClient,
} from "../providers/postgres/postgres-client.js";
import { PostgresSessionProvider } from "../providers/postgres/postgres-session-provider.js";
import { Session, setAfterWrite } from "../session.js";
import { PROMPT_KEY } from "../session-setup.js";
import {
  assertSnapshot,
  signSnapshot,
  verifySnapshot,
} from "../snapshot/snapshot.js";
import {
  type SessionInfo,
  type SessionSnapshot,
} from "../contracts/session-info.js";
import { isSqlProvider, type SqlProvider } from "../contracts/sql-provider.js";
import type { CompactionFunction } from "../compaction/session-compaction.js";
import type { AuditOptions, AuditSink } from "../contracts/audit.js";
import type {
  CompactAfterOptions,
  CompactionErrorHandler,
  CompactionMeta,
  SearchResult,
  SessionMessage,
  StoredCompaction,
} from "../contracts/types.js";
import { forkPath } from "./fork-path.js";
import { MemorySessionRegistry } from "../providers/memory/memory-registry.js";
import { PostgresSessionRegistry } from "../providers/postgres/postgres-registry.js";
import type { ListPosition, SessionRegistry } from "../contracts/registry.js";
import { SqlSessionRegistry } from "../providers/sql/sql-registry.js";

const DEFAULT_SEARCH_LIMIT = 20;
const DEFAULT_CACHED_SESSIONS = 256;
const OWNER_KEY = "owner";
const METADATA_PREFIX = "meta:";

/** A context provider, or a function making one per session (Arbor extension). */
export type ProviderOrFactory<T> = T | ((sessionId: string) => T);

/** `withContext` options of a manager: `provider` may be a per-session factory. */
export interface ManagerContextOptions extends Omit<
  SessionContextOptions,
  "provider"
> {
  provider?: ProviderOrFactory<AnyContextProvider>;
}

export interface SessionManagerOptions {
  /** With a key, exported snapshots are signed (HMAC-SHA256) and imports must carry a valid signature. */
  snapshotKey?: string;
  /** How many Session objects `getSession()` keeps (least recently used ones are dropped). Default 256. */
  maxCachedSessions?: number;
}

export interface CreateSessionOptions {
  parentSessionId?: string;
  model?: string;
  source?: string;
  /** Binds the session to a user or tenant (SPEC §15.4). */
  ownerId?: string;
  metadata?: Record<string, string>;
}

export interface ListSessionsOptions {
  ownerId?: string;
  limit?: number;
  /** From a previous `listPage()`. */
  cursor?: string;
}

export interface ManagerSearchOptions {
  limit?: number;
  sessionIds?: readonly string[];
  ownerId?: string;
}

export interface ImportSessionOptions {
  ownerId?: string;
  name?: string;
  /** Give the session a fresh id instead of the snapshot's. */
  newId?: boolean;
  /** Allow binding a snapshot of another owner to `ownerId`. */
  rebind?: boolean;
}

/** What a manager runs on: the registry and a way to open a session by id. */
export interface ManagerBackend {
  registry: SessionRegistry;
  /** A Session in builder state over this store, for the id. */
  openSession(sessionId: string): Session;
}

interface Template {
  label: string;
  options: ManagerContextOptions;
}

/**
 * Many named sessions in one store (SPEC §11): a registry with usage and cost, lifecycle, forks,
 * compact-and-split, cross-session search, tenant binding and whole-session snapshots, on every
 * backend. Every method that touches storage returns a Promise.
 *
 * @example
 * ```ts
 * import { SessionManager } from "arbor-memory/session";
 * import { openSqlite } from "arbor-memory/sqlite";
 *
 * const manager = SessionManager.create(openSqlite("agent.db"))
 *   .withContext("memory", { maxTokens: 1000 })
 *   .withCachedPrompt()
 *   .withSearchableHistory("history");
 * const info = await manager.create("Trip planning", { ownerId: "user-42" });
 * await manager.append(info.id, { id: "u1", role: "user", parts: [{ type: "text", text: "Hi" }] });
 * const session = await manager.resume(info.id, "user-42");
 * ```
 */
export class SessionManager {
  private readonly templates: Template[] = [];
  private cachedPrompt:
    ProviderOrFactory<WritableContextProvider> | null | undefined;
  private historyLabel: string | null = null;
  private compactFunction: CompactionFunction | undefined;
  private compactAfterSettings:
    { threshold: number; options?: CompactAfterOptions } | undefined;
  private compactionErrorHandler: CompactionErrorHandler | undefined;
  private auditSettings: { sink: AuditSink; options: AuditOptions } | undefined;
  private readonly sessions = new Map<string, Session>();
  private readonly maxCachedSessions: number;

  constructor(
    private readonly backend: ManagerBackend,
    private readonly options: SessionManagerOptions = {},
  ) {
    this.maxCachedSessions = Math.max(
      1,
      options.maxCachedSessions ?? DEFAULT_CACHED_SESSIONS,
    );
  }

  /**
   * A manager over a store (SPEC §11). Lazy: nothing is read or written until a method needs it.
   *
   * | Backend                 | `target`                                                        |
   * | ----------------------- | --------------------------------------------------------------- |
   * | SQLite / Durable Object | a `sql` store: `openSqlite()`, a Durable Object                 |
   * | PostgreSQL              | a `pg` Pool or Client (`query`), or an `execute` connection     |
   *
   * On PostgreSQL apply the schema once first (`applyPostgresSchema`). For tests, `inMemory()`.
   */
  static create(
    target: SqlProvider | PostgresClient,
    options?: SessionManagerOptions,
  ): SessionManager {
    if (!isSqlProvider(target)) {
      if (isPostgresClient(target)) {
        const root = new PostgresSessionProvider(target);
        return new SessionManager(
          {
            registry: new PostgresSessionRegistry(target),
            openSession: (sessionId) =>
              Session.create(root).forSession(sessionId),
          },
          options,
        );
      }
      throw new ArborTypeError(
        "INVALID_TARGET",
        "[arbor] SessionManager.create() needs a `sql` store (openSqlite(), a Durable Object) or a PostgreSQL client (pg Pool or Client, or a connection with `execute`); use SessionManager.inMemory() for tests",
      );
    }
    return new SessionManager(
      {
        registry: new SqlSessionRegistry(target),
        openSession: (sessionId) =>
          Session.create(target).forSession(sessionId),
      },
      options,
    );
  }

  /** A manager whose sessions live in this process only. */
  static inMemory(options?: SessionManagerOptions): SessionManager {
    const store = new MemoryStore();
    const root = new InMemorySessionProvider({}, store);
    return new SessionManager(
      {
        registry: new MemorySessionRegistry(store),
        openSession: (sessionId) => Session.create(root).forSession(sessionId),
      },
      options,
    );
  }

  // --- Builder (applies to every session it opens) ---

  /**
   * A block for every session. Without a provider it is auto-wired per session
   * (`<label>_<sessionId>`); a provider instance is shared by all sessions; a function makes one
   * per session.
   */
  withContext(label: string, options: ManagerContextOptions = {}): this {
    if (this.templates.some((template) => template.label === label)) {
      throw new ArborError("BLOCK_EXISTS", `Block "${label}" already exists`);
    }
    this.templates.push({ label, options });
    return this;
  }

  /** Persists each session's frozen prompt (per-session rows), or in the given provider(s). */
  withCachedPrompt(
    provider?: ProviderOrFactory<WritableContextProvider>,
  ): this {
    this.cachedPrompt = provider ?? null;
    return this;
  }

  onCompaction(compactFunction: CompactionFunction): this {
    this.compactFunction = compactFunction;
    for (const session of this.sessions.values())
      session.onCompaction(compactFunction);
    return this;
  }

  compactAfter(threshold: number, options?: CompactAfterOptions): this {
    this.compactAfterSettings = { threshold, ...(options ? { options } : {}) };
    for (const session of this.sessions.values())
      session.compactAfter(threshold, options);
    return this;
  }

  onCompactionError(handler: CompactionErrorHandler): this {
    this.compactionErrorHandler = handler;
    for (const session of this.sessions.values())
      session.onCompactionError(handler);
    return this;
  }

  /** Records every managed session's writes to `sink` (SPEC §15.5). */
  withAudit(sink: AuditSink, options: AuditOptions = {}): this {
    this.auditSettings = { sink, options };
    return this;
  }

  /** Adds to every session a read-only search block over all sessions' history (SPEC §11.7). */
  withSearchableHistory(label: string): this {
    this.historyLabel = label;
    return this;
  }

  // --- Lifecycle ---

  /** Registers a new session with a random id and returns its row. */
  async create(
    name: string,
    options: CreateSessionOptions = {},
  ): Promise<SessionInfo> {
    const now = new Date().toISOString();
    const info: SessionInfo = {
      id: crypto.randomUUID(),
      name,
      parent_session_id: options.parentSessionId ?? null,
      model: options.model ?? null,
      source: options.source ?? null,
      input_tokens: 0,
      output_tokens: 0,
      estimated_cost: 0,
      end_reason: null,
      created_at: now,
      updated_at: now,
    };
    await this.backend.registry.insert(info);
    if (options.ownerId !== undefined) {
      await this.backend.registry.setConfig(
        info.id,
        OWNER_KEY,
        options.ownerId,
      );
    }
    for (const [key, value] of Object.entries(options.metadata ?? {})) {
      await this.backend.registry.setConfig(
        info.id,
        METADATA_PREFIX + key,
        value,
      );
    }
    return info;
  }

  /** The session's row, or `null`. */
  async get(id: string): Promise<SessionInfo | null> {
    return this.backend.registry.get(id);
  }

  /**
   * Sessions, most recently updated first (ties: newer creation first, then id). With `limit`
   * one page; continue with the `cursor` of `listPage()`.
   */
  async list(options: ListSessionsOptions = {}): Promise<SessionInfo[]> {
    return (await this.listPage(options)).sessions;
  }

  /** One page of `list()` and the cursor of the next (`null` after the last). */
  async listPage(
    options: ListSessionsOptions = {},
  ): Promise<{ sessions: SessionInfo[]; nextCursor: string | null }> {
    const limit =
      Number.isInteger(options.limit) && (options.limit as number) > 0
        ? options.limit
        : undefined;
    const sessions = await this.backend.registry.list({
      ...(options.ownerId !== undefined ? { ownerId: options.ownerId } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(options.cursor ? { after: decodeCursor(options.cursor) } : {}),
    });
    const last = sessions.at(-1);
    const nextCursor =
      limit !== undefined && last && sessions.length === limit
        ? encodeCursor(last)
        : null;
    return { sessions, nextCursor };
  }

  async rename(id: string, name: string): Promise<void> {
    await this.requireRow(id);
    await this.backend.registry.update(id, {
      name,
      updated_at: new Date().toISOString(),
    });
  }

  /**
   * Deletes the session and every row it owns: messages, overlays, index rows, auto-wired block
   * and prompt rows, config and block history. `false` for an unknown id.
   */
  async delete(id: string): Promise<boolean> {
    this.sessions.delete(id);
    const contextKeys = this.templates
      .filter((template) => template.options.provider === undefined)
      .map((template) => `${template.label}_${id}`);
    if (this.cachedPrompt === null) contextKeys.push(`${PROMPT_KEY}_${id}`);
    return this.backend.registry.deleteSession(id, contextKeys);
  }

  /** The Session for an id, configured with the manager's builder settings. Sync; no row needed. */
  getSession(id: string): Session {
    const cached = this.sessions.get(id);
    if (cached) {
      // Least recently used goes first: re-insert on access.
      this.sessions.delete(id);
      this.sessions.set(id, cached);
      return cached;
    }
    const session = this.configure(this.backend.openSession(id), id);
    this.sessions.set(id, session);
    if (this.sessions.size > this.maxCachedSessions) {
      this.sessions.delete(this.sessions.keys().next().value as string);
    }
    return session;
  }

  // --- Message helpers ---

  async append(
    id: string,
    message: SessionMessage,
    parentId?: string | null,
  ): Promise<string> {
    await this.getSession(id).appendMessage(message, parentId);
    return message.id;
  }

  /** Updates the message if it exists in the session (parent unchanged), else appends it. */
  async upsert(
    id: string,
    message: SessionMessage,
    parentId?: string | null,
  ): Promise<string> {
    const session = this.getSession(id);
    if (await session.getMessage(message.id))
      await session.updateMessage(message);
    else await session.appendMessage(message, parentId);
    return message.id;
  }

  /**
   * Appends in order, each message under the previous one. The first goes under `parentId`, or
   * under the latest leaf when it is omitted (`null` makes it a root). Returns the last id.
   */
  async appendAll(
    id: string,
    messages: readonly SessionMessage[],
    parentId?: string | null,
  ): Promise<string | null> {
    const session = this.getSession(id);
    let parent: string | null | undefined = parentId;
    for (const message of messages) {
      await session.appendMessage(message, parent);
      parent = message.id;
    }
    return messages.at(-1)?.id ?? parentId ?? null;
  }

  async getHistory(
    id: string,
    leafId?: string | null,
  ): Promise<SessionMessage[]> {
    return this.getSession(id).getHistory(leafId);
  }

  /** The length of the active path (not the total number of rows). */
  async getMessageCount(id: string): Promise<number> {
    return this.getSession(id).getPathLength();
  }

  async clearMessages(id: string): Promise<void> {
    await this.getSession(id).clearMessages();
  }

  async deleteMessages(
    id: string,
    messageIds: readonly string[],
  ): Promise<void> {
    await this.getSession(id).deleteMessages(messageIds);
  }

  async getBranches(id: string, messageId: string): Promise<SessionMessage[]> {
    return this.getSession(id).getBranches(messageId);
  }

  // --- Fork, compaction, usage ---

  /**
   * A new session holding the source's raw path root → `atMessageId` and the overlays on it, so
   * its history equals the source's history at that message while the originals are kept.
   */
  async fork(
    id: string,
    atMessageId: string,
    newName: string,
    options: { preserveIds?: boolean } = {},
  ): Promise<SessionInfo> {
    await this.requireRow(id);
    const source = this.getSession(id);
    const copied = forkPath(
      await source.exportSnapshot(),
      atMessageId,
      options.preserveIds ?? false,
    );
    if (!copied) {
      throw new ArborError(
        "MESSAGE_NOT_FOUND",
        `Message "${atMessageId}" not found in session "${id}"`,
      );
    }
    const owner = await this.getOwner(id);
    const info = await this.create(newName, {
      parentSessionId: id,
      ...(owner !== null ? { ownerId: owner } : {}),
    });
    // One bulk write of the copied records: no auto-compaction, no per-message events.
    await this.getSession(info.id).importSnapshot(
      {
        format: "arbor.session",
        version: 1,
        sessionId: info.id,
        exportedAt: new Date().toISOString(),
        ...copied,
      },
      { replace: false },
    );
    await this.backend.registry.touch(info.id, new Date().toISOString());
    return (await this.get(info.id))!;
  }

  async addCompaction(
    id: string,
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): Promise<StoredCompaction> {
    return this.getSession(id).addCompaction(
      summary,
      fromMessageId,
      toMessageId,
      meta,
    );
  }

  async getCompactions(id: string): Promise<StoredCompaction[]> {
    return this.getSession(id).getCompactions();
  }

  async removeCompaction(id: string, compactionId: string): Promise<boolean> {
    return this.getSession(id).removeCompaction(compactionId);
  }

  /**
   * Ends a session with `end_reason = "compaction"` and starts a child session whose first
   * message carries the summary. No LLM call; the old messages stay.
   */
  async compactAndSplit(
    id: string,
    summary: string,
    newName?: string,
  ): Promise<SessionInfo> {
    const old = await this.requireRow(id);
    const now = new Date().toISOString();
    await this.backend.registry.update(id, {
      end_reason: "compaction",
      updated_at: now,
    });
    const owner = await this.getOwner(id);
    const info = await this.create(newName ?? old.name ?? "Compacted", {
      parentSessionId: id,
      ...(old.model !== null ? { model: old.model } : {}),
      ...(old.source !== null ? { source: old.source } : {}),
      ...(owner !== null ? { ownerId: owner } : {}),
    });
    await this.append(info.id, {
      id: crypto.randomUUID(),
      role: "assistant",
      parts: [
        { type: "text", text: `[Context from previous session]\n\n${summary}` },
      ],
    });
    return (await this.get(info.id))!;
  }

  /** Adds token usage and cost to the session's counters. */
  async addUsage(
    id: string,
    inputTokens: number,
    outputTokens: number,
    cost: number,
  ): Promise<void> {
    for (const [name, value] of [
      ["inputTokens", inputTokens],
      ["outputTokens", outputTokens],
      ["cost", cost],
    ] as const) {
      if (typeof value !== "number" || !Number.isFinite(value)) {
        throw new ArborTypeError(
          "INVALID_ARGUMENT",
          `[arbor] addUsage() needs a finite number for \`${name}\`, got ${String(value)}`,
        );
      }
    }
    const updated = await this.backend.registry.addUsage(
      id,
      inputTokens,
      outputTokens,
      cost,
      new Date().toISOString(),
    );
    if (!updated) throw notFound(id);
  }

  // --- Search and tools ---

  /** Per-term AND search across the managed sessions; results carry `sessionId`. */
  async search(
    query: string,
    options: ManagerSearchOptions = {},
  ): Promise<SearchResult[]> {
    if (queryTerms(query).length === 0) return [];
    const limit =
      Number.isInteger(options.limit) && (options.limit as number) > 0
        ? (options.limit as number)
        : DEFAULT_SEARCH_LIMIT;
    return this.backend.registry.search(query, {
      limit,
      ...(options.sessionIds ? { sessionIds: options.sessionIds } : {}),
      ...(options.ownerId !== undefined ? { ownerId: options.ownerId } : {}),
    });
  }

  /** `{ session_search }`: the model searches past conversations across all sessions. */
  async tools(): Promise<{ session_search: ArborTool<{ query: string }> }> {
    return {
      session_search: {
        description:
          "Search past conversations for relevant context. Searches the messages of all sessions, not only the current one.",
        inputSchema: z.object({ query: z.string().describe("Search query") }),
        execute: async ({ query }) => {
          try {
            return (await this.formatSearch(query)) ?? "No results found.";
          } catch (error) {
            return `Error: ${error instanceof Error ? error.message : String(error)}`;
          }
        },
      },
    };
  }

  // --- Tenant binding and metadata ---

  /** Binds a session to an owner. Rebinding to another owner needs `force`. */
  async setOwner(
    id: string,
    ownerId: string,
    options: { force?: boolean } = {},
  ): Promise<void> {
    await this.requireRow(id);
    const current = await this.backend.registry.getConfig(id, OWNER_KEY);
    if (current === ownerId) return;
    if (current !== null && !options.force)
      throw new SessionAccessError("SESSION_FORBIDDEN", id);
    await this.backend.registry.setConfig(id, OWNER_KEY, ownerId);
  }

  async getOwner(id: string): Promise<string | null> {
    return this.backend.registry.getConfig(id, OWNER_KEY);
  }

  /**
   * The Session, if it exists and belongs to `ownerId`. Otherwise `SessionAccessError` with the
   * same message whether missing or foreign, so existence does not leak.
   */
  async resume(id: string, ownerId: string): Promise<Session> {
    if (!(await this.backend.registry.get(id)))
      throw new SessionAccessError("SESSION_NOT_FOUND", id);
    if ((await this.getOwner(id)) !== ownerId)
      throw new SessionAccessError("SESSION_FORBIDDEN", id);
    return this.getSession(id);
  }

  async setMetadata(id: string, key: string, value: string): Promise<void> {
    await this.requireRow(id);
    await this.backend.registry.setConfig(id, METADATA_PREFIX + key, value);
  }

  async getMetadata(id: string, key: string): Promise<string | null> {
    return this.backend.registry.getConfig(id, METADATA_PREFIX + key);
  }

  // --- Snapshots ---

  /** The whole session with its registry row, owner and metadata; signed when a key is set. */
  async exportSession(id: string): Promise<SessionSnapshot> {
    const info = await this.requireRow(id);
    const snapshot = await this.getSession(id).exportSnapshot();
    const owner = await this.getOwner(id);
    const metadata = Object.fromEntries(
      Object.entries(
        await this.backend.registry.listConfig(id, METADATA_PREFIX),
      ).map(([key, value]) => [key.slice(METADATA_PREFIX.length), value]),
    );
    const full: SessionSnapshot = {
      ...snapshot,
      info,
      ...(owner !== null ? { ownerId: owner } : {}),
      metadata,
    };
    if (this.options.snapshotKey)
      full.signature = await signSnapshot(full, this.options.snapshotKey);
    return full;
  }

  /**
   * Restores an exported session: same id (or a fresh one with `newId`), messages, overlays,
   * blocks, prompt, owner and metadata. An existing id throws and writes nothing.
   */
  async importSession(
    snapshot: SessionSnapshot,
    options: ImportSessionOptions = {},
  ): Promise<SessionInfo> {
    assertSnapshot(snapshot);
    if (this.options.snapshotKey)
      await verifySnapshot(snapshot, this.options.snapshotKey);
    const id = options.newId ? crypto.randomUUID() : snapshot.sessionId;
    if (await this.backend.registry.get(id)) {
      throw new ArborError("SESSION_EXISTS", `Session "${id}" already exists`);
    }
    if (
      snapshot.ownerId !== undefined &&
      options.ownerId !== undefined &&
      snapshot.ownerId !== options.ownerId &&
      !options.rebind
    ) {
      throw new SessionAccessError("SESSION_FORBIDDEN", id);
    }
    const now = new Date().toISOString();
    const info: SessionInfo = {
      ...(snapshot.info ?? {
        parent_session_id: null,
        model: null,
        source: null,
        input_tokens: 0,
        output_tokens: 0,
        estimated_cost: 0,
        end_reason: null,
        created_at: now,
        updated_at: now,
      }),
      id,
      name: options.name ?? snapshot.info?.name ?? "Imported",
    };
    await this.backend.registry.insert(info);
    try {
      const owner = options.ownerId ?? snapshot.ownerId;
      if (owner !== undefined)
        await this.backend.registry.setConfig(id, OWNER_KEY, owner);
      for (const [key, value] of Object.entries(snapshot.metadata ?? {})) {
        await this.backend.registry.setConfig(id, METADATA_PREFIX + key, value);
      }
      await this.getSession(id).importSnapshot(snapshot, { replace: true });
      await this.backend.registry.update(id, { updated_at: info.updated_at });
    } catch (error) {
      // Leave nothing behind: the import is all or nothing.
      await this.delete(id);
      throw error;
    }
    return (await this.get(id))!;
  }

  // --- Internal helpers ---

  private configure(session: Session, id: string): Session {
    for (const { label, options } of this.templates) {
      const { provider, ...rest } = options;
      const resolved = typeof provider === "function" ? provider(id) : provider;
      session.withContext(label, {
        ...rest,
        ...(resolved ? { provider: resolved } : {}),
      });
    }
    if (this.historyLabel !== null) {
      session.withContext(this.historyLabel, {
        description: "Cross-session conversation history",
        provider: this.historyProvider(),
      });
    }
    if (this.cachedPrompt !== undefined) {
      const prompt =
        typeof this.cachedPrompt === "function"
          ? this.cachedPrompt(id)
          : this.cachedPrompt;
      session.withCachedPrompt(prompt ?? undefined);
    }
    if (this.compactFunction) session.onCompaction(this.compactFunction);
    if (this.compactAfterSettings) {
      session.compactAfter(
        this.compactAfterSettings.threshold,
        this.compactAfterSettings.options,
      );
    }
    if (this.compactionErrorHandler)
      session.onCompactionError(this.compactionErrorHandler);
    if (this.auditSettings)
      session.withAudit(this.auditSettings.sink, this.auditSettings.options);
    setAfterWrite(session, () =>
      this.backend.registry.touch(id, new Date().toISOString()),
    );
    return session;
  }

  private historyProvider(): SearchProvider {
    return {
      get: async () => {
        const count = await this.backend.registry.count();
        if (count === 0) return null;
        return `${count} ${count === 1 ? "session" : "sessions"} available for search.`;
      },
      search: (query) => this.formatSearch(query),
    };
  }

  private async formatSearch(query: string): Promise<string | null> {
    const hits = await this.search(query, { limit: 10 });
    if (hits.length === 0) return null;
    return hits.map((hit) => `[${hit.role}] ${hit.content}`).join("\n---\n");
  }

  private async requireRow(id: string): Promise<SessionInfo> {
    const info = await this.backend.registry.get(id);
    if (!info) throw notFound(id);
    return info;
  }
}

function notFound(id: string): Error {
  return new ArborError("SESSION_NOT_FOUND", `Session "${id}" not found`);
}

function encodeCursor(row: ListPosition): string {
  return encodeURIComponent(
    JSON.stringify([row.updated_at, row.created_at, row.id]),
  );
}

function decodeCursor(cursor: string): ListPosition {
  try {
    const [updated_at, created_at, id] = JSON.parse(
      decodeURIComponent(cursor),
    ) as string[];
    if (
      typeof updated_at === "string" &&
      typeof created_at === "string" &&
      typeof id === "string"
    ) {
      return { updated_at, created_at, id };
    }
  } catch {
    // fall through
  }
  throw new ArborTypeError(
    "INVALID_ARGUMENT",
    "[arbor] Invalid list cursor; pass the nextCursor of listPage()",
  );
}
