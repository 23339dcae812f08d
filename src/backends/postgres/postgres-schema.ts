import type { PostgresClient } from "./postgres-client.js";

export { POSTGRES_SCHEMA_VERSION } from "./postgres-meta.js";

/** Options of `postgresSchemaSql()` and `applyPostgresSchema()`. */
export interface PostgresSchemaOptions {
  /**
   * The text-search configuration of the generated `tsvector` columns: `"english"` (the
   * reference DDL's default: stemming, stop words), `"simple"` (no stemming, no stop words: best for
   * mixed languages), or any configuration the server has (`"russian"`, `"german"`, …). Fixed when
   * the tables are created; the providers read it from `arbor_meta`.
   */
  textSearchConfig?: string;
}

/**
 * Creates or upgrades Arbor's tables in the connected database: runs the pending migrations
 * (recorded in `arbor_meta`), each statement on its own. With a `pg` Pool or Client it runs in one
 * transaction holding an advisory lock, so several app instances may call it at start-up. An
 * `execute`-style connection cannot run a transaction: apply the schema from one place (a deploy
 * step or a one-off script). Needs the right to create tables; the providers themselves only read
 * and write rows.
 *
 * Throws `INVALID_ARGUMENT` when the database already indexes text with another configuration
 * (the generated columns keep theirs), and `SCHEMA_VERSION` when it was written by a newer Arbor.
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
  // The DDL, the migrations and the data upgrades load here, on the first call: an app applies
  // its schema once, and a process that only uses sessions never needs them.
  const { migrateSchema } = await import("./postgres-migrate.js");
  return migrateSchema(client, options.textSearchConfig);
}
