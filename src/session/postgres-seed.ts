/**
 * PostgreSQL as `arbor-memory/session` holds it: the seed-named providers and
 * `applyPostgresSchema`, kept so code written for the Agents SDK ports by changing an import, and
 * the backend `SessionManager.create(pgClient)` runs on (manager-backend.ts). Everything else
 * PostgreSQL (the registry, the DDL as text, API keys, the backend) is in `arbor-memory/postgres`.
 *
 * This file is the session entry's one PostgreSQL boundary (docs/behavior/runtime.md, "Bundle
 * size on Workers"): each class here is a stand-in, constructed synchronously with the checks of
 * the real class, that loads the PostgreSQL backend (src/backends/postgres/, the classes of
 * `arbor-memory/postgres`) with one `import()` on its first call and then delegates every call to
 * the real object, so a Worker that never talks to PostgreSQL does not carry the query code. What
 * must answer synchronously (identity, sub-providers, embeddings, the change feed) is answered
 * here from the backend's light modules.
 *
 * A stand-in is a class of its own: `instanceof` does not cross the two entries, and TypeScript
 * keeps `arbor-memory/session`'s `PostgresSessionProvider` and `arbor-memory/postgres`'s apart.
 * Arbor tells providers by their members, never by their class.
 */
import type {
  PostgresBlockHistory as RealBlockHistory,
  PostgresClient,
  PostgresContextProvider as RealContextProvider,
  PostgresSchemaOptions,
  PostgresSearchProvider as RealSearchProvider,
  PostgresSessionProvider as RealSessionProvider,
  PostgresSessionProviderOptions,
  PostgresSessionRegistry as RealSessionRegistry,
} from "../backends/postgres/index.js";
import {
  checkBlockLabel,
  checkSessionId,
} from "../backends/postgres/postgres-arguments.js";
import {
  postgresChangeFeed,
  watchPostgresChanges,
} from "../backends/postgres/postgres-changes.js";
import { checkPostgresClient } from "../backends/postgres/postgres-client.js";
import { postgresEmbeddings } from "../backends/postgres/postgres-embedding-access.js";
import type { Backend } from "./contracts/backend.js";
import type {
  BlockHistoryStore,
  BlockVersion,
} from "./contracts/block-history.js";
import type {
  ChangeListener,
  Unsubscribe,
  WatchChangesOptions,
} from "./contracts/changes.js";
import type {
  SearchProvider,
  WritableContextProvider,
} from "./contracts/context-provider.js";
import type { BackendEmbeddings } from "./contracts/embedding-store.js";
import type {
  ImportRecords,
  MessageWrite,
  WriteMessagesOptions,
  WriteMessagesResult,
  PathEntry,
  SessionProvider,
  StoredMessageRecord,
  StoreTokenEstimate,
} from "./contracts/provider.js";
import type {
  RegistryListOptions,
  RegistrySearchOptions,
  SessionInfoPatch,
  SessionListing,
  SessionRegistry,
  SummaryHit,
} from "./contracts/registry.js";
import type { SessionInfo } from "./contracts/session-info.js";
import type {
  CompactionMeta,
  HistoryRowStat,
  RecentHistoryResult,
  SearchResult,
  SessionMessage,
  StoredCompaction,
  TextSearchOptions,
} from "./contracts/types.js";
import { lazyApiKeys } from "./state/lazy-api-keys.js";
import { lazyStreams } from "./state/lazy-streams.js";

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
 * semantics (ranked any-term matching, literal operators, CJK words inside sentences).
 *
 * From `arbor-memory/session` the query code loads with the first call (a failed load is tried
 * again on the next one); `arbor-memory/postgres` exports the same provider with its code loaded
 * up front, as a class of its own (`instanceof` does not cross the two entries).
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
  /** Inline file data is kept once per database in `arbor_attachments`, apart from the rows. */
  readonly storesAttachments = true;
  /** `insertMessage` honours `requireRegistered` (the registry is in the same database). */
  readonly insertChecksRegistry = true;
  readonly #client: PostgresClient;
  readonly #options: PostgresSessionProviderOptions;
  readonly #real: () => Promise<RealSessionProvider>;

  constructor(
    client: PostgresClient,
    sessionId = "",
    options: PostgresSessionProviderOptions = {},
  ) {
    this.sessionId = checkSessionId(sessionId);
    this.#client = checkPostgresClient(client);
    const settled = { touchRegistry: options.touchRegistry === true };
    this.#options = settled;
    this.#real = behind(
      this,
      (postgres) =>
        new postgres.PostgresSessionProvider(client, sessionId, settled),
    );
  }

  /** The client: sessions over the same client and id share one in-process append lock. */
  get storeIdentity(): object {
    return this.#client;
  }

  /** The database's embeddings (pgvector when installed, else an exact scan over `real[]`). */
  embeddings(): BackendEmbeddings {
    return postgresEmbeddings(this.#client);
  }

  /** The same store scoped to another session id. */
  forSession(sessionId: string): PostgresSessionProvider {
    return new PostgresSessionProvider(this.#client, sessionId, this.#options);
  }

  /** A writable block row in `cf_agents_context_blocks` under `key` (docs/behavior/session-setup.md auto-wiring). */
  createContextProvider(key: string): PostgresContextProvider {
    return new PostgresContextProvider(this.#client, key);
  }

  /** Block history in `arbor_block_history`, scoped to this session (docs/behavior/context-blocks.md). */
  createBlockHistory(): BlockHistoryStore {
    return new BlockHistoryStandIn(this.#client, this.sessionId);
  }

  async getMessage(id: string): Promise<SessionMessage | null> {
    return (await this.#real()).getMessage(id);
  }

  async getHistory(leafId?: string | null): Promise<SessionMessage[]> {
    return (await this.#real()).getHistory(leafId);
  }

  /** `getHistory` and the id of the leaf its path ends at, in one statement. */
  async getHistoryAndLeaf(
    leafId?: string | null,
  ): Promise<{ messages: SessionMessage[]; leafId: string | null }> {
    return (await this.#real()).getHistoryAndLeaf(leafId);
  }

  async getHistoryAndLeafWithin(
    leafId: string | null | undefined,
    within: { messages: number; bytes: number },
  ): Promise<{ messages: SessionMessage[]; leafId: string | null } | null> {
    return (await this.#real()).getHistoryAndLeafWithin(leafId, within);
  }

  async getLatestLeaf(): Promise<SessionMessage | null> {
    return (await this.#real()).getLatestLeaf();
  }

  async getBranches(messageId: string): Promise<SessionMessage[]> {
    return (await this.#real()).getBranches(messageId);
  }

  async getPathLength(leafId?: string | null): Promise<number> {
    return (await this.#real()).getPathLength(leafId);
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
    return (await this.#real()).appendMessage(message, parentId);
  }

  /** The one write (`SessionProvider.writeMessages`). */
  async writeMessages(
    messages: readonly MessageWrite[],
    options?: WriteMessagesOptions,
  ): Promise<WriteMessagesResult> {
    return (await this.#real()).writeMessages(messages, options);
  }

  /** Replaces content, role and search text of the message with this id; a no-op if absent. */
  async updateMessage(message: SessionMessage, json?: string): Promise<void> {
    return (await this.#real()).updateMessage(message, json);
  }

  /** Deletes with tree and overlay repair (docs/behavior/messages-and-tree.md), atomically under the session lock. */
  async deleteMessages(ids: readonly string[]): Promise<void> {
    return (await this.#real()).deleteMessages(ids);
  }

  /** Deletes the session's messages and overlays in one statement under the session lock. */
  async clearMessages(): Promise<void> {
    return (await this.#real()).clearMessages();
  }

  async addCompaction(
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): Promise<StoredCompaction> {
    return (await this.#real()).addCompaction(
      summary,
      fromMessageId,
      toMessageId,
      meta,
    );
  }

  async getCompactions(): Promise<StoredCompaction[]> {
    return (await this.#real()).getCompactions();
  }

  async deleteCompaction(id: string): Promise<boolean> {
    return (await this.#real()).deleteCompaction(id);
  }

  async searchMessages(
    query: string,
    limit?: number,
    options?: TextSearchOptions,
  ): Promise<SearchResult[]> {
    return (await this.#real()).searchMessages(query, limit, options);
  }

  /** The byte-budgeted suffix of the path (docs/behavior/history.md); content is read for the chosen rows only. */
  async getRecentHistory(
    leafId: string | null | undefined,
    maxContentBytes: number,
    minRecentMessages = 1,
  ): Promise<RecentHistoryResult> {
    return (await this.#real()).getRecentHistory(
      leafId,
      maxContentBytes,
      minRecentMessages,
    );
  }

  /** `{ id, role, bytes }` per stored row on the path, without reading content. */
  async getHistoryRowStats(leafId?: string | null): Promise<HistoryRowStat[]> {
    return (await this.#real()).getHistoryRowStats(leafId);
  }

  /** Streamed history: `{ id, bytes }` per row of the path, root first, without content. */
  async getPathIds(leafId?: string | null): Promise<PathEntry[]> {
    return (await this.#real()).getPathIds(leafId);
  }

  /** The ids on the path, in no order (explained search). */
  async getPathIdSet(leafId?: string | null): Promise<ReadonlySet<string>> {
    return (await this.#real()).getPathIdSet(leafId);
  }

  /** The stored messages with these ids, in the given order; `null` for unknown ids. */
  async getMessagesByIds(
    ids: readonly string[],
  ): Promise<Array<SessionMessage | null>> {
    return (await this.#real()).getMessagesByIds(ids);
  }

  /** The token estimate recorded when the database was created (docs/token-estimation.md). */
  async getTokenEstimate(): Promise<StoreTokenEstimate> {
    return (await this.#real()).getTokenEstimate();
  }

  /** How many messages the session stores, every branch counted (one COUNT). */
  async countMessages(): Promise<number> {
    return (await this.#real()).countMessages();
  }

  /** Every message of the session, all branches, in insertion order (unparseable rows skipped). */
  async exportMessages(): Promise<StoredMessageRecord[]> {
    return (await this.#real()).exportMessages();
  }

  /**
   * Inserts exported records as they were (snapshot import, fork), atomically under the session
   * lock; `MESSAGE_EXISTS` and nothing written when an id is taken (without `replace`).
   */
  async importRecords(records: ImportRecords): Promise<void> {
    return (await this.#real()).importRecords(records);
  }

  /** A per-session value from `assistant_config`, or `null`. */
  async getConfig(key: string): Promise<string | null> {
    return (await this.#real()).getConfig(key);
  }

  /** Sets (or with `null` deletes) a per-session value in `assistant_config`. */
  async setConfig(key: string, value: string | null): Promise<void> {
    return (await this.#real()).setConfig(key, value);
  }

  /** Calls `listener` once per committed write to this session (every session with `allSessions`), from any client. */
  watchChanges(
    listener: ChangeListener,
    options: WatchChangesOptions = {},
  ): Unsubscribe {
    // Synchronous, so not delegated: the same feed as the real provider's (one hub per client,
    // postgres-changes.ts), whose reader loads with the first watch.
    const sessionId = options.allSessions ? null : this.sessionId;
    return watchPostgresChanges(
      this.#client,
      { sessionId, after: options.after, onStart: options.onStart },
      listener,
    );
  }
}

/**
 * A writable context block stored as one row of `cf_agents_context_blocks`, keyed by `label`
 * (docs/behavior/storage.md). Pass a session-scoped label such as `` `memory_${sessionId}` `` to keep sessions
 * apart; `PostgresSessionProvider.createContextProvider()` does that for auto-wired blocks.
 *
 * `set()` is a plain upsert (last writer wins). `appendContextBlock` re-reads the row before
 * writing, and `replaceIf()` lets a caller write only if the row still holds what it read.
 *
 * From `arbor-memory/session` the query code loads with the first call; `arbor-memory/postgres`
 * exports the same provider as a class of its own.
 *
 * @example
 * ```ts
 * const memory = new PostgresContextProvider(pool, "memory_chat-1");
 * Session.create(new PostgresSessionProvider(pool, "chat-1")).withContext("memory", { provider: memory });
 * ```
 */
export class PostgresContextProvider implements WritableContextProvider {
  readonly #real: () => Promise<RealContextProvider>;

  constructor(client: PostgresClient, label: string) {
    checkBlockLabel(label);
    checkPostgresClient(client);
    this.#real = behind(
      this,
      (postgres) => new postgres.PostgresContextProvider(client, label),
    );
  }

  /** The block content, or `null` when the row does not exist. */
  async get(): Promise<string | null> {
    return (await this.#real()).get();
  }

  /** Upserts the row and bumps `updated_at`. */
  async set(content: string): Promise<void> {
    return (await this.#real()).set(content);
  }

  /**
   * Compare-and-set: writes `content` only if the row still holds `expected` (`null` = the row
   * does not exist), in one statement. `false` when another writer got there first; re-read and
   * try again. Lets appends from several processes lose nothing.
   */
  async replaceIf(expected: string | null, content: string): Promise<boolean> {
    return (await this.#real()).replaceIf(expected, content);
  }
}

/**
 * Searchable knowledge in `cf_agents_search_entries` (docs/behavior/storage.md), with the query rules of
 * message search (docs/behavior/search.md): ranked any-term, entries holding every term first,
 * stop and question words dropped, the configuration's stemming, operators literal, CJK words
 * matched inside sentences.
 * Entries are isolated by block label only: every session using a block with this label sees
 * them.
 *
 * From `arbor-memory/session` the query code loads with the first call; `arbor-memory/postgres`
 * exports the same provider as a class of its own.
 *
 * @example
 * ```ts
 * Session.create(new PostgresSessionProvider(pool, "chat-1"))
 *   .withContext("knowledge", { provider: new PostgresSearchProvider(pool) });
 * ```
 */
export class PostgresSearchProvider implements SearchProvider {
  readonly #real: () => Promise<RealSearchProvider>;
  #label = "";

  constructor(client: PostgresClient) {
    checkPostgresClient(client);
    this.#real = behind(
      this,
      (postgres) => new postgres.PostgresSearchProvider(client),
    );
  }

  /** Sets the label the entries are stored under (the block label). */
  init(label: string): void {
    this.#label = label;
  }

  /** `"<n> entries indexed."`, or `null` when there are none. */
  async get(): Promise<string | null> {
    return (await this.#labelled()).get();
  }

  /**
   * The best 10 entries as `[<key>]\n<content>` joined by blank lines; `"No results found."` when
   * nothing matches; `null` for a blank query or any error (never throws).
   */
  async search(query: string): Promise<string | null> {
    if (typeof query !== "string" || query.trim() === "") return null;
    try {
      return await (await this.#labelled()).search(query);
    } catch {
      return null;
    }
  }

  /** Upserts an entry and its search text. */
  async set(key: string, content: string): Promise<void> {
    return (await this.#labelled()).set(key, content);
  }

  /** Removes an entry (Arbor extension). */
  async delete(key: string): Promise<void> {
    return (await this.#labelled()).delete(key);
  }

  // --- Internal helpers ---

  /** The real provider under the label `init()` set last (the Session calls it while wiring, before any load). */
  async #labelled(): Promise<RealSearchProvider> {
    const real = await this.#real();
    real.init(this.#label);
    return real;
  }
}

/**
 * Creates or upgrades Arbor's tables in the connected database (the same function as
 * `arbor-memory/postgres`'s, loaded on first call): runs the pending migrations, recorded in
 * `arbor_meta`. With a `pg` Pool or Client it runs in one transaction holding an advisory lock,
 * so several app instances may call it at start-up.
 *
 * Throws `INVALID_ARGUMENT` when the database already indexes text with another configuration,
 * and `SCHEMA_VERSION` when it was written by a newer Arbor.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * import { applyPostgresSchema, PostgresSessionProvider, Session } from "arbor-memory/session";
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await applyPostgresSchema(pool); // once, at deploy or start-up
 * const session = Session.create(new PostgresSessionProvider(pool, "chat-1"));
 * ```
 */
export async function applyPostgresSchema(
  client: PostgresClient,
  options: PostgresSchemaOptions = {},
): Promise<{ version: number; textSearchConfig: string }> {
  return (await loadPostgres()).applyPostgresSchema(client, options);
}

/**
 * The backend of `SessionManager.create(pgClient)`: `arbor-memory/postgres`'s
 * `postgresBackend(client)`, with stand-ins for its registry and sessions (whose appends touch the
 * registry row in the insert, as that backend's do) and every other capability delegated to it
 * once loaded. One per client, like `postgresBackend`.
 */
export function lazyPostgresBackend(client: PostgresClient): Backend {
  checkPostgresClient(client);
  let backend = backends.get(client);
  if (!backend) {
    backend = createLazyBackend(client);
    backends.set(client, backend);
  }
  return backend;
}

// --- Internal helpers ---

type PostgresModule = typeof import("../backends/postgres/index.js");

let loading: Promise<PostgresModule> | undefined;

/** The PostgreSQL backend, loaded once; a failed load is tried again on the next call. */
function loadPostgres(): Promise<PostgresModule> {
  loading ??= import("../backends/postgres/index.js").catch(
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** Every public member name of `T` (its `#private` state aside), of any type. */
type MembersOf<T> = { [K in keyof T]: unknown };

/**
 * The real object behind a stand-in, made by `create` on the first call once the backend has
 * loaded. `standIn` is checked by the compiler only: it must have every public member of the real
 * class, so a member added to the class and not forwarded by its stand-in fails to compile here
 * (the contract each stand-in implements checks the members' types).
 */
function behind<Real>(
  standIn: NoInfer<MembersOf<Real>>,
  create: (postgres: PostgresModule) => Real,
): () => Promise<Real> {
  let real: Real | undefined;
  return async () => {
    const postgres = await loadPostgres();
    // Checked after the wait: concurrent first calls share one real object.
    return (real ??= create(postgres));
  };
}

/** `PostgresBlockHistory`, for the stand-in provider's `createBlockHistory()`. */
class BlockHistoryStandIn implements BlockHistoryStore {
  readonly #real: () => Promise<RealBlockHistory>;

  constructor(client: PostgresClient, sessionId: string) {
    this.#real = behind(
      this,
      (postgres) => new postgres.PostgresBlockHistory(client, sessionId),
    );
  }

  async record(
    label: string,
    entry: Omit<BlockVersion, "version" | "at"> & { at?: string },
  ): Promise<BlockVersion> {
    return (await this.#real()).record(label, entry);
  }

  async list(label: string): Promise<BlockVersion[]> {
    return (await this.#real()).list(label);
  }

  async clear(): Promise<void> {
    return (await this.#real()).clear();
  }
}

/** `PostgresSessionRegistry`, for the manager's backend (`lazyPostgresBackend`). */
class RegistryStandIn implements SessionRegistry {
  readonly #real: () => Promise<RealSessionRegistry>;

  constructor(client: PostgresClient) {
    this.#real = behind(
      this,
      (postgres) => new postgres.PostgresSessionRegistry(client),
    );
  }

  async insert(info: SessionInfo): Promise<void> {
    return (await this.#real()).insert(info);
  }

  async insertWithConfig(
    info: SessionInfo,
    config: Readonly<Record<string, string>>,
  ): Promise<void> {
    return (await this.#real()).insertWithConfig(info, config);
  }

  async get(id: string): Promise<SessionInfo | null> {
    return (await this.#real()).get(id);
  }

  async getMany(ids: readonly string[]): Promise<SessionInfo[]> {
    return (await this.#real()).getMany(ids);
  }

  async list(options: RegistryListOptions): Promise<SessionInfo[]> {
    return (await this.#real()).list(options);
  }

  async listDetailed(options: RegistryListOptions): Promise<SessionListing[]> {
    return (await this.#real()).listDetailed(options);
  }

  async update(id: string, patch: SessionInfoPatch): Promise<boolean> {
    return (await this.#real()).update(id, patch);
  }

  async addUsage(
    id: string,
    inputTokens: number,
    outputTokens: number,
    cost: number,
    at: string,
  ): Promise<boolean> {
    return (await this.#real()).addUsage(
      id,
      inputTokens,
      outputTokens,
      cost,
      at,
    );
  }

  async touch(id: string, at: string): Promise<void> {
    return (await this.#real()).touch(id, at);
  }

  async count(): Promise<number> {
    return (await this.#real()).count();
  }

  async getConfig(sessionId: string, key: string): Promise<string | null> {
    return (await this.#real()).getConfig(sessionId, key);
  }

  async setConfig(
    sessionId: string,
    key: string,
    value: string,
  ): Promise<void> {
    return (await this.#real()).setConfig(sessionId, key, value);
  }

  async setConfigIfAbsent(
    sessionId: string,
    key: string,
    value: string,
  ): Promise<boolean> {
    return (await this.#real()).setConfigIfAbsent(sessionId, key, value);
  }

  async listConfig(
    sessionId: string,
    prefix: string,
  ): Promise<Record<string, string>> {
    return (await this.#real()).listConfig(sessionId, prefix);
  }

  async search(
    query: string,
    options: RegistrySearchOptions,
  ): Promise<SearchResult[]> {
    return (await this.#real()).search(query, options);
  }

  async searchSummaries(
    query: string,
    options: RegistrySearchOptions,
  ): Promise<SummaryHit[]> {
    return (await this.#real()).searchSummaries(query, options);
  }

  async deleteSession(
    id: string,
    contextKeys: readonly string[],
  ): Promise<boolean> {
    return (await this.#real()).deleteSession(id, contextKeys);
  }
}

const backends = new WeakMap<PostgresClient, Backend>();

function createLazyBackend(client: PostgresClient): Backend {
  // `postgresBackend` builds every optional capability (checked there by `satisfies`).
  const real = async () => (await loadPostgres()).postgresBackend(client);
  let registry: RegistryStandIn | undefined;
  return {
    name: "postgres",
    identity: client,
    get registry() {
      return (registry ??= new RegistryStandIn(client));
    },
    session: (sessionId) =>
      new PostgresSessionProvider(client, sessionId, { touchRegistry: true }),
    erase: {
      eraseTarget: async (target, options) =>
        (await real()).erase!.eraseTarget(target, options),
    },
    // Both answer synchronously and are light: the same objects `postgresBackend` hands out.
    embeddings: postgresEmbeddings(client),
    changes: postgresChangeFeed(client),
    apiKeys: lazyApiKeys(async () => (await real()).apiKeys!),
    streams: lazyStreams(async () => (await real()).streams!),
    searchIndex: {
      settings: async () => (await real()).searchIndex!.settings(),
      configure: async (settings) =>
        (await real()).searchIndex!.configure(settings),
    },
  } satisfies Required<Backend>;
}
