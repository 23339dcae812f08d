import { checkTextSearchConfig, versionStatement } from "./postgres-ddl.js";
import {
  DEFAULT_TEXT_SEARCH_CONFIG,
  POSTGRES_SCHEMA_VERSION,
} from "./postgres-meta.js";
import { MIGRATIONS } from "./postgres-migrations.js";
import type { PostgresSchemaOptions } from "./postgres-schema.js";

/**
 * The whole schema as one SQL script for a given text-search configuration: every statement
 * idempotent (`IF NOT EXISTS`, `CREATE OR REPLACE`), ending with the version record. Run it with
 * `psql -f` or your migration tool; `applyPostgresSchema()` runs the same statements one by one.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 * import { postgresSchemaSql } from "arbor-memory/postgres";
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
