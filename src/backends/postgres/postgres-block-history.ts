import type {
  BlockHistoryStore,
  BlockVersion,
} from "../../session/contracts/block-history.js";
import type { PostgresBlockHistoryStore } from "./postgres-block-history-store.js";
import { checkPostgresClient, type PostgresClient } from "./postgres-client.js";
import { postgresOps } from "./postgres-lazy.js";

/**
 * Block history (docs/behavior/context-blocks.md) in `arbor_block_history`, scoped by session id and label. Versions
 * are numbered by the database: concurrent writers from several processes each get their own
 * version (`UNIQUE (session_id, label, version)` decides, the loser retries).
 */
export class PostgresBlockHistory implements BlockHistoryStore {
  readonly #client: PostgresClient;
  #loaded: PostgresBlockHistoryStore | undefined;

  constructor(
    client: PostgresClient,
    private readonly sessionId: string,
  ) {
    this.#client = checkPostgresClient(client);
  }

  async record(
    label: string,
    entry: Omit<BlockVersion, "version" | "at"> & { at?: string },
  ): Promise<BlockVersion> {
    return (await this.#store()).record(label, entry);
  }

  async list(label: string): Promise<BlockVersion[]> {
    return (await this.#store()).list(label);
  }

  async clear(): Promise<void> {
    return (await this.#store()).clear();
  }

  // --- Internal helpers ---

  /** The queries, loaded on the first call (docs/behavior/runtime.md, "Bundle size on Workers"). */
  async #store(): Promise<PostgresBlockHistoryStore> {
    if (!this.#loaded) {
      const ops = await postgresOps();
      this.#loaded ??= new ops.PostgresBlockHistoryStore(
        ops.postgresExecutor(this.#client),
        this.sessionId,
      );
    }
    return this.#loaded;
  }
}
