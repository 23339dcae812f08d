import type { PostgresClient } from "./postgres-client.js";
import {
  checkTextSearchConfig,
  DEFAULT_TEXT_SEARCH_CONFIG,
  versionStatement,
} from "./postgres-ddl.js";
import { MIGRATIONS, POSTGRES_SCHEMA_VERSION } from "./postgres-migrations.js";
import { migrateSchema } from "./postgres-settings.js";

export { POSTGRES_SCHEMA_VERSION };

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
 * The whole schema as one SQL script for a given text-search configuration: every statement
 * idempotent (`IF NOT EXISTS`, `CREATE OR REPLACE`), ending with the version record. Run it with
 * `psql -f` or your migration tool; `applyPostgresSchema()` runs the same statements one by one.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 * import { postgresSchemaSql } from "arbor-memory/session";
 *
 * writeFileSync("arbor.sql", postgresSchemaSql({ textSearchConfig: "simple" }));
 * ```
 */
export function postgresSchemaSql(options: PostgresSchemaOptions = {}): string {
  const config = checkTextSearchConfig(
    options.textSearchConfig ?? DEFAULT_TEXT_SEARCH_CONFIG,
  );
  const statements = [
    ...MIGRATIONS.flatMap((statements) => statements(config)),
    versionStatement(POSTGRES_SCHEMA_VERSION),
  ];
  return `-- Arbor PostgreSQL schema, version ${POSTGRES_SCHEMA_VERSION}, text search configuration '${config}'.
-- The reference DDL (docs/behavior/storage.md) plus Arbor's additive tables and indexes; safe to run again.
${statements.map((statement) => `${statement};\n`).join("\n")}`;
}

/**
 * The schema with the reference DDL's `'english'` configuration: `postgresSchemaSql()` with no options.
 * Arbor never creates tables implicitly; run this once, or call `applyPostgresSchema()`.
 */
// Marked pure so a bundle that does not use the constant drops it, and with it the DDL.
export const POSTGRES_SCHEMA_SQL: string = /* @__PURE__ */ postgresSchemaSql();

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
  const requested =
    options.textSearchConfig === undefined
      ? undefined
      : checkTextSearchConfig(options.textSearchConfig);
  return migrateSchema(client, requested);
}
