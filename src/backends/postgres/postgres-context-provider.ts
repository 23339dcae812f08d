import type { WritableContextProvider } from "../../session/contracts/context-provider.js";
import { checkBlockLabel } from "./postgres-arguments.js";
import type { PostgresClient, PostgresExecutor } from "./postgres-client.js";
import { postgresExecutor } from "./postgres-executor.js";
import { postgresSettings } from "./postgres-settings.js";

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
  readonly #db: PostgresExecutor;

  constructor(
    client: PostgresClient,
    private readonly label: string,
  ) {
    checkBlockLabel(label);
    this.#db = postgresExecutor(client);
  }

  /** The block content, or `null` when the row does not exist. */
  async get(): Promise<string | null> {
    await postgresSettings(this.#db);
    const [row] = await this.#db.query<{ content: string }>(
      "SELECT content FROM cf_agents_context_blocks WHERE label = ?",
      [this.label],
    );
    return row?.content ?? null;
  }

  /** Upserts the row and bumps `updated_at`. */
  async set(content: string): Promise<void> {
    await postgresSettings(this.#db);
    await this.#db.query(
      `INSERT INTO cf_agents_context_blocks (label, content, updated_at)
      VALUES (?, ?, clock_timestamp())
      ON CONFLICT (label) DO UPDATE SET content = EXCLUDED.content, updated_at = EXCLUDED.updated_at`,
      [this.label, content],
    );
  }

  /**
   * Compare-and-set: writes `content` only if the row still holds `expected` (`null` = the row
   * does not exist), in one statement. `false` when another writer got there first; re-read and
   * try again. Lets appends from several processes lose nothing.
   */
  async replaceIf(expected: string | null, content: string): Promise<boolean> {
    await postgresSettings(this.#db);
    const rows =
      expected === null
        ? await this.#db.query(
            `INSERT INTO cf_agents_context_blocks (label, content, updated_at)
            VALUES (?, ?, clock_timestamp())
            ON CONFLICT (label) DO NOTHING RETURNING label`,
            [this.label, content],
          )
        : await this.#db.query(
            `UPDATE cf_agents_context_blocks SET content = ?, updated_at = clock_timestamp()
            WHERE label = ? AND content = ? RETURNING label`,
            [content, this.label, expected],
          );
    return rows.length > 0;
  }
}
