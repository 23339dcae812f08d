import { ArborError } from "../../session/errors/index.js";
import type { PostgresClient, PostgresQueryable } from "./postgres-client.js";
import { checkTextSearchConfig, versionStatement } from "./postgres-ddl.js";
import { postgresExecutor } from "./postgres-executor.js";
import { ADVISORY_LOCK_NAMESPACE } from "./postgres-locking.js";
import {
  DEFAULT_TEXT_SEARCH_CONFIG,
  POSTGRES_SCHEMA_VERSION,
  TOKEN_ESTIMATE_KEY,
} from "./postgres-meta.js";
import { MIGRATIONS } from "./postgres-migrations.js";
import { upgradeReferenceTables } from "./postgres-reference-upgrade.js";
import {
  forgetSettings,
  newerSchema,
  readMeta,
  type Meta,
} from "./postgres-settings.js";
import { upgradeToolInputSearchText } from "./postgres-tool-input-upgrade.js";

/**
 * Schema application: what `applyPostgresSchema()` (postgres-schema.ts) loads on its first call,
 * with the DDL and the data upgrades it reaches. An app applies its schema once, at deploy or
 * start-up, so a process that only reads and writes sessions never loads this.
 */

/**
 * `applyPostgresSchema()`: checks the options, then runs the pending migrations, each after its
 * data upgrade (`UPGRADES`), with a Pool or Client in one transaction under an advisory lock.
 */
export async function migrateSchema(
  client: PostgresClient,
  textSearchConfig: string | undefined,
): Promise<{ version: number; textSearchConfig: string }> {
  const requested =
    textSearchConfig === undefined
      ? undefined
      : checkTextSearchConfig(textSearchConfig);
  const executor = postgresExecutor(client);
  const run = async (db: PostgresQueryable) => {
    const current = await readMeta(db);
    const config = await chooseConfig(db, current, requested);
    if (current.version > POSTGRES_SCHEMA_VERSION) {
      throw newerSchema(current.version);
    }
    // A database Arbor creates now counts with the multilingual estimate; one that already has
    // message tables (an older Arbor's or the reference's) keeps the heuristic.
    const created = current.version === 0 && !(await hasMessageTable(db));
    for (let step = current.version; step < POSTGRES_SCHEMA_VERSION; step++) {
      await UPGRADES[step]?.(db);
      for (const statement of MIGRATIONS[step]!(config)) {
        await db.query(statement);
      }
    }
    await db.query(versionStatement(POSTGRES_SCHEMA_VERSION));
    if (created) {
      await db.query(
        "INSERT INTO arbor_meta (key, value) VALUES (?, 'multilingual') ON CONFLICT (key) DO NOTHING",
        [TOKEN_ESTIMATE_KEY],
      );
    }
    forgetSettings(executor);
    return { version: POSTGRES_SCHEMA_VERSION, textSearchConfig: config };
  };
  if (!executor.supportsTransactions) return run(executor);
  return executor.transaction(async (tx) => {
    // Serializes concurrent appliers; the second one then finds the work done.
    await tx.query(
      `SELECT pg_advisory_xact_lock(${ADVISORY_LOCK_NAMESPACE}, 0)`,
    );
    return run(tx);
  });
}

// --- Internal helpers ---

/**
 * The data conversion to run before `MIGRATIONS[i]`, when that step has one. v1: tables the
 * reference implementation created (no `seq`, raw search text) are converted in place. v5: the
 * search text of messages with tool calls gains their inputs.
 */
const UPGRADES: ReadonlyArray<
  ((db: PostgresQueryable) => Promise<void>) | undefined
> = [
  upgradeReferenceTables,
  undefined,
  undefined,
  undefined,
  upgradeToolInputSearchText,
];

async function hasMessageTable(db: PostgresQueryable): Promise<boolean> {
  const [row] = await db.query<{ present: boolean }>(
    "SELECT to_regclass('assistant_messages') IS NOT NULL AS present",
  );
  return row?.present === true;
}

/**
 * The configuration to create tables with: the recorded one, else the one the reference DDL's tables
 * were created with (read from the generated column), else the requested one or `'english'`.
 * A request for another configuration than the tables have is an error, never silently ignored.
 */
async function chooseConfig(
  db: PostgresQueryable,
  meta: Meta,
  requested: string | undefined,
): Promise<string> {
  const existing = meta.config ?? (await generatedColumnConfig(db));
  if (existing !== undefined) {
    if (requested !== undefined && requested !== existing) {
      throw new ArborError(
        "INVALID_ARGUMENT",
        `[arbor] [postgres] This database already indexes text with the '${existing}' configuration; it cannot change to '${requested}' in place. Rebuild the search columns (docs/postgres.md) or omit textSearchConfig.`,
      );
    }
    return existing;
  }
  return requested ?? DEFAULT_TEXT_SEARCH_CONFIG;
}

async function generatedColumnConfig(
  db: PostgresQueryable,
): Promise<string | undefined> {
  const [row] = await db.query<{ expression: string | null }>(
    `SELECT pg_get_expr(d.adbin, d.adrelid) AS expression
     FROM pg_attrdef AS d
     JOIN pg_attribute AS a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
     WHERE d.adrelid = to_regclass('assistant_messages') AND a.attname = 'content_tsv'`,
  );
  const match = /to_tsvector\('([^']+)'::regconfig/.exec(row?.expression ?? "");
  return match?.[1];
}
