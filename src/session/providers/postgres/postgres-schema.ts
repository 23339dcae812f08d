import { ArborError } from "../../errors/index.js";
import { changeLogStatements } from "./postgres-changes.js";
import { attachmentStatements } from "./postgres-attachments.js";
import {
  postgresExecutor,
  type PostgresClient,
  type PostgresQueryable,
} from "./postgres-client.js";
import {
  arborStatementsV1,
  checkTextSearchConfig,
  DEFAULT_TEXT_SEARCH_CONFIG,
  SCHEMA_VERSION_KEY,
  seedStatements,
  TEXT_SEARCH_CONFIG_KEY,
  versionStatement,
} from "./postgres-ddl.js";
import { ADVISORY_LOCK_NAMESPACE } from "./postgres-locking.js";
import { upgradeReferenceTables } from "./postgres-reference-upgrade.js";

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
 * One schema migration: `statements` are idempotent DDL (also the text of
 * `POSTGRES_SCHEMA_SQL`); `upgrade`, when present, first converts data written by an older
 * schema. `MIGRATIONS[i]` brings a database to version `i + 1`. Append-only: never edit a
 * released step, add a new one.
 */
interface Migration {
  statements(config: string): string[];
  upgrade?(db: PostgresQueryable, config: string): Promise<void>;
}

const MIGRATIONS: readonly Migration[] = [
  // v1: the reference DDL plus Arbor's additive tables, columns, indexes and functions. Tables the
  // reference implementation created (no `seq`) are converted in place.
  {
    statements: (config) => [
      ...seedStatements(config),
      ...arborStatementsV1(config),
    ],
    upgrade: upgradeReferenceTables,
  },
  // v2: the change log behind watchChanges (docs/behavior/events-and-audit.md, "Change feed").
  { statements: () => changeLogStatements() },
  // v3: attachments: inline file data stored once per hash, with references (docs/behavior/storage.md#attachments).
  { statements: () => attachmentStatements() },
];

/** The schema version this build of Arbor writes and needs. */
export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;

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
    ...MIGRATIONS.flatMap((migration) => migration.statements(config)),
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
export const POSTGRES_SCHEMA_SQL: string = postgresSchemaSql();

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
  const executor = postgresExecutor(client);
  const run = async (db: PostgresQueryable) => {
    const current = await readMeta(db);
    const config = await chooseConfig(db, current, requested);
    if (current.version > POSTGRES_SCHEMA_VERSION) {
      throw newerSchema(current.version);
    }
    for (let step = current.version; step < POSTGRES_SCHEMA_VERSION; step++) {
      const migration = MIGRATIONS[step]!;
      await migration.upgrade?.(db, config);
      for (const statement of migration.statements(config)) {
        await db.query(statement);
      }
    }
    await db.query(versionStatement(POSTGRES_SCHEMA_VERSION));
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

/** What the providers need to know about the database, read once per client. */
export interface PostgresSettings {
  textSearchConfig: string;
}

/**
 * Reads the schema version and text-search configuration from `arbor_meta`, once per client
 * (a failed read is retried on the next call). Throws `SCHEMA_MISSING` when the schema is not
 * applied or older than this Arbor needs, `SCHEMA_VERSION` when it is newer.
 */
export function postgresSettings(
  db: PostgresQueryable & object,
): Promise<PostgresSettings> {
  let settings = settingsCache.get(db);
  if (!settings) {
    settings = loadSettings(db);
    settingsCache.set(db, settings);
    settings.catch(() => {
      if (settingsCache.get(db) === settings) settingsCache.delete(db);
    });
  }
  return settings;
}

// --- Internal helpers ---

const settingsCache = new WeakMap<object, Promise<PostgresSettings>>();

function forgetSettings(db: object): void {
  settingsCache.delete(db);
}

async function loadSettings(db: PostgresQueryable): Promise<PostgresSettings> {
  const meta = await readMeta(db);
  if (meta.version > POSTGRES_SCHEMA_VERSION) throw newerSchema(meta.version);
  if (meta.version < POSTGRES_SCHEMA_VERSION) {
    throw missingSchema(
      meta.version === 0
        ? "has no Arbor schema version"
        : `is at schema version ${meta.version}, this Arbor needs ${POSTGRES_SCHEMA_VERSION}`,
    );
  }
  return { textSearchConfig: meta.config ?? DEFAULT_TEXT_SEARCH_CONFIG };
}

interface Meta {
  version: number;
  config: string | undefined;
}

/** `arbor_meta` as it is; version 0 and no config when the table does not exist yet. */
async function readMeta(db: PostgresQueryable): Promise<Meta> {
  const [exists] = await db.query<{ present: boolean }>(
    "SELECT to_regclass('arbor_meta') IS NOT NULL AS present",
  );
  if (!exists?.present) return { version: 0, config: undefined };
  const rows = await db.query<{ key: string; value: string }>(
    "SELECT key, value FROM arbor_meta WHERE key IN (?, ?)",
    [SCHEMA_VERSION_KEY, TEXT_SEARCH_CONFIG_KEY],
  );
  const value = (key: string) => rows.find((row) => row.key === key)?.value;
  const version = Number(value(SCHEMA_VERSION_KEY) ?? 0);
  return {
    version: Number.isInteger(version) && version >= 0 ? version : 0,
    config: value(TEXT_SEARCH_CONFIG_KEY),
  };
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

function missingSchema(detail: string): ArborError {
  return new ArborError(
    "SCHEMA_MISSING",
    `[arbor] [postgres] The database ${detail}. Apply Arbor's schema once with applyPostgresSchema(client) or POSTGRES_SCHEMA_SQL (docs/postgres.md).`,
  );
}

function newerSchema(version: number): ArborError {
  return new ArborError(
    "SCHEMA_VERSION",
    `[arbor] [postgres] The database has schema version ${version}, newer than this Arbor understands (${POSTGRES_SCHEMA_VERSION}). Upgrade arbor.`,
  );
}
