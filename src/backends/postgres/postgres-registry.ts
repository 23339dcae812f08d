import type { SessionInfo } from "../../session/contracts/session-info.js";
import type { SearchResult } from "../../session/contracts/types.js";
import type {
  RegistryListOptions,
  RegistrySearchOptions,
  SessionInfoPatch,
  SessionListing,
  SessionRegistry,
  SummaryHit,
} from "../../session/contracts/registry.js";
import { checkPostgresClient, type PostgresClient } from "./postgres-client.js";
import { postgresOps } from "./postgres-lazy.js";
import type { PostgresRegistryStore } from "./postgres-registry-store.js";

/**
 * The SessionManager registry on PostgreSQL (docs/behavior/manager.md, docs/behavior/storage.md): rows in `assistant_sessions`,
 * per-session config (owner, metadata) in `assistant_config`, both created by
 * `applyPostgresSchema()` (never implicitly). Takes a `pg` Pool or Client or an `execute`-style
 * connection, like the providers, and shares their executor.
 *
 * Every write is one statement, so it is atomic on every connection kind; `deleteSession` holds
 * the session's advisory lock (see `deleteSession`). Timestamps are `timestamptz` truncated to
 * milliseconds and read back as ISO-8601 UTC with milliseconds, so `list()`'s order and its
 * keyset continuation match `compareListOrder` exactly.
 */
export class PostgresSessionRegistry implements SessionRegistry {
  readonly #client: PostgresClient;
  #loaded: PostgresRegistryStore | undefined;

  constructor(client: PostgresClient) {
    this.#client = checkPostgresClient(client);
  }

  async insert(info: SessionInfo): Promise<void> {
    return (await this.#store()).insert(info);
  }

  async get(id: string): Promise<SessionInfo | null> {
    return (await this.#store()).get(id);
  }

  async getMany(ids: readonly string[]): Promise<SessionInfo[]> {
    return (await this.#store()).getMany(ids);
  }

  async list(options: RegistryListOptions): Promise<SessionInfo[]> {
    return (await this.#store()).list(options);
  }

  /** The page of `list()` with owner, metadata and message count per row, in one statement. */
  async listDetailed(options: RegistryListOptions): Promise<SessionListing[]> {
    return (await this.#store()).listDetailed(options);
  }

  async update(id: string, patch: SessionInfoPatch): Promise<boolean> {
    return (await this.#store()).update(id, patch);
  }

  /**
   * One statement: concurrent calls from any number of instances all add up. Token counts are
   * whole numbers in the table (`BIGINT`); fractions are rounded.
   */
  async addUsage(
    id: string,
    inputTokens: number,
    outputTokens: number,
    cost: number,
    at: string,
  ): Promise<boolean> {
    return (await this.#store()).addUsage(
      id,
      inputTokens,
      outputTokens,
      cost,
      at,
    );
  }

  async touch(id: string, at: string): Promise<void> {
    return (await this.#store()).touch(id, at);
  }

  async count(): Promise<number> {
    return (await this.#store()).count();
  }

  async getConfig(sessionId: string, key: string): Promise<string | null> {
    return (await this.#store()).getConfig(sessionId, key);
  }

  async setConfig(
    sessionId: string,
    key: string,
    value: string,
  ): Promise<void> {
    return (await this.#store()).setConfig(sessionId, key, value);
  }

  async setConfigIfAbsent(
    sessionId: string,
    key: string,
    value: string,
  ): Promise<boolean> {
    return (await this.#store()).setConfigIfAbsent(sessionId, key, value);
  }

  async listConfig(
    sessionId: string,
    prefix: string,
  ): Promise<Record<string, string>> {
    return (await this.#store()).listConfig(sessionId, prefix);
  }

  /**
   * The message search of `PostgresSessionProvider.searchMessages` (same matching and order),
   * over the messages of registered sessions only, optionally of `sessionIds` and of sessions
   * owned by `ownerId`.
   */
  async search(
    query: string,
    options: RegistrySearchOptions,
  ): Promise<SearchResult[]> {
    return (await this.#store()).search(query, options);
  }

  /** Overlays whose summary matches the query, newest first (explained manager search). */
  async searchSummaries(
    query: string,
    options: RegistrySearchOptions,
  ): Promise<SummaryHit[]> {
    return (await this.#store()).searchSummaries(query, options);
  }

  /**
   * Deletes the registry row and every row of the session in one statement that holds the
   * session's advisory lock, the lock appends, deletes and clears take. Over a Pool or Client it
   * runs in a transaction that takes the lock first, so the statement sees everything committed
   * before it; over an `execute`-style connection it is gated by the session's fingerprint and
   * retried when a write slipped in (`sessionWrite`). The other deletes only run when the
   * registry row was deleted: `false` and nothing deleted without one.
   */
  async deleteSession(
    id: string,
    contextKeys: readonly string[],
  ): Promise<boolean> {
    return (await this.#store()).deleteSession(id, contextKeys);
  }

  // --- Internal helpers ---

  /** The queries, loaded on the first call (docs/behavior/runtime.md, "Bundle size on Workers"). */
  async #store(): Promise<PostgresRegistryStore> {
    if (!this.#loaded) {
      const ops = await postgresOps();
      this.#loaded ??= new ops.PostgresRegistryStore(
        ops.postgresExecutor(this.#client),
      );
    }
    return this.#loaded;
  }
}
