import type { SearchProvider } from "../../session/contracts/context-provider.js";
import { checkPostgresClient, type PostgresClient } from "./postgres-client.js";
import { postgresOps } from "./postgres-lazy.js";
import type { PostgresSearchStore } from "./postgres-search-store.js";

/**
 * Searchable knowledge in `cf_agents_search_entries` (docs/behavior/storage.md), with the query rules of
 * message search (docs/behavior/search.md): ranked any-term, entries holding every term first,
 * stop and question words dropped, the configuration's stemming, operators literal, CJK words
 * matched inside sentences.
 * Entries are isolated by block label only: every session using a block with this label sees
 * them.
 *
 * @example
 * ```ts
 * Session.create(new PostgresSessionProvider(pool, "chat-1"))
 *   .withContext("knowledge", { provider: new PostgresSearchProvider(pool) });
 * ```
 */
export class PostgresSearchProvider implements SearchProvider {
  readonly #client: PostgresClient;
  #loaded: PostgresSearchStore | undefined;
  private label = "";

  constructor(client: PostgresClient) {
    this.#client = checkPostgresClient(client);
  }

  /** Sets the label the entries are stored under (the block label). */
  init(label: string): void {
    this.label = label;
  }

  /** `"<n> entries indexed."`, or `null` when there are none. */
  async get(): Promise<string | null> {
    return (await this.#store()).get(this.label);
  }

  /**
   * The best 10 entries as `[<key>]\n<content>` joined by blank lines; `"No results found."` when
   * nothing matches; `null` for a blank query or any error (never throws).
   */
  async search(query: string): Promise<string | null> {
    if (typeof query !== "string" || query.trim() === "") return null;
    try {
      return await (await this.#store()).search(this.label, query);
    } catch {
      return null;
    }
  }

  /** Upserts an entry and its search text. */
  async set(key: string, content: string): Promise<void> {
    return (await this.#store()).set(this.label, key, content);
  }

  /** Removes an entry (Arbor extension). */
  async delete(key: string): Promise<void> {
    return (await this.#store()).delete(this.label, key);
  }

  // --- Internal helpers ---

  /** The queries, loaded on the first call (docs/behavior/runtime.md, "Bundle size on Workers"). */
  async #store(): Promise<PostgresSearchStore> {
    if (!this.#loaded) {
      const ops = await postgresOps();
      this.#loaded ??= new ops.PostgresSearchStore(
        ops.postgresExecutor(this.#client),
      );
    }
    return this.#loaded;
  }
}
