import type { WritableContextProvider } from "../../session/contracts/context-provider.js";
import { ArborTypeError } from "../../session/errors/index.js";
import { checkPostgresClient, type PostgresClient } from "./postgres-client.js";
import type { PostgresContextStore } from "./postgres-context-store.js";
import { postgresOps } from "./postgres-lazy.js";

/**
 * A writable context block stored as one row of `cf_agents_context_blocks`, keyed by `label`
 * (docs/behavior/storage.md). Pass a session-scoped label such as `` `memory_${sessionId}` `` to keep sessions
 * apart; `PostgresSessionProvider.createContextProvider()` does that for auto-wired blocks.
 *
 * `set()` is a plain upsert (last writer wins). `appendContextBlock` re-reads the row before
 * writing, and `replaceIf()` lets a caller write only if the row still holds what it read.
 *
 * @example
 * ```ts
 * const memory = new PostgresContextProvider(pool, "memory_chat-1");
 * Session.create(new PostgresSessionProvider(pool, "chat-1")).withContext("memory", { provider: memory });
 * ```
 */
export class PostgresContextProvider implements WritableContextProvider {
  readonly #client: PostgresClient;
  #loaded: PostgresContextStore | undefined;

  constructor(
    client: PostgresClient,
    private readonly label: string,
  ) {
    if (typeof label !== "string" || label.length === 0) {
      throw new ArborTypeError(
        "INVALID_ARGUMENT",
        "[arbor] [postgres] PostgresContextProvider needs a non-empty row label, e.g. `memory_<sessionId>`",
      );
    }
    this.#client = checkPostgresClient(client);
  }

  /** The block content, or `null` when the row does not exist. */
  async get(): Promise<string | null> {
    return (await this.#store()).get();
  }

  /** Upserts the row and bumps `updated_at`. */
  async set(content: string): Promise<void> {
    return (await this.#store()).set(content);
  }

  /**
   * Compare-and-set: writes `content` only if the row still holds `expected` (`null` = the row
   * does not exist), in one statement. `false` when another writer got there first; re-read and
   * try again. Lets appends from several processes lose nothing.
   */
  async replaceIf(expected: string | null, content: string): Promise<boolean> {
    return (await this.#store()).replaceIf(expected, content);
  }

  // --- Internal helpers ---

  /** The queries, loaded on the first call (docs/behavior/runtime.md, "Bundle size on Workers"). */
  async #store(): Promise<PostgresContextStore> {
    if (!this.#loaded) {
      const ops = await postgresOps();
      this.#loaded ??= new ops.PostgresContextStore(
        ops.postgresExecutor(this.#client),
        this.label,
      );
    }
    return this.#loaded;
  }
}
