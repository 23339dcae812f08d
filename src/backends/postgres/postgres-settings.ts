import { ArborError } from "../../session/errors/index.js";
import type { StoreTokenEstimate } from "../../session/contracts/provider.js";
import type { PostgresClient, PostgresQueryable } from "./postgres-client.js";
import {
  DEFAULT_TEXT_SEARCH_CONFIG,
  SCHEMA_VERSION_KEY,
  TEXT_SEARCH_CONFIG_KEY,
  TOKEN_ESTIMATE_KEY,
  versionStatement,
} from "./postgres-ddl.js";
import { postgresExecutor } from "./postgres-executor.js";
import { MIGRATIONS, POSTGRES_SCHEMA_VERSION } from "./postgres-migrations.js";
import { upgradeToolInputSearchText } from "./postgres-tool-input-upgrade.js";
import { upgradeReferenceTables } from "./postgres-reference-upgrade.js";
import { ADVISORY_LOCK_NAMESPACE } from "./postgres-ddl.js";

/**
 * `applyPostgresSchema()` once its options are checked: runs the pending migrations, each after
 * its data upgrade (`UPGRADES`), with a Pool or Client in one transaction under an advisory lock.
 */
export async function migrateSchema(
  client: PostgresClient,
  requested: string | undefined,
): Promise<{ version: number; textSearchConfig: string }> {
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

/** What the providers need to know about the database, read once per client. */
export interface PostgresSettings {
  textSearchConfig: string;
  /** The token estimate recorded when the database was created; `"heuristic"` when none was. */
  tokenEstimate: StoreTokenEstimate;
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
  return {
    textSearchConfig: meta.config ?? DEFAULT_TEXT_SEARCH_CONFIG,
    tokenEstimate: meta.tokenEstimate,
  };
}

interface Meta {
  version: number;
  config: string | undefined;
  tokenEstimate: StoreTokenEstimate;
}

/** `arbor_meta` as it is; version 0 and no config when the table does not exist yet. */
async function readMeta(db: PostgresQueryable): Promise<Meta> {
  const [exists] = await db.query<{ present: boolean }>(
    "SELECT to_regclass('arbor_meta') IS NOT NULL AS present",
  );
  if (!exists?.present)
    return { version: 0, config: undefined, tokenEstimate: "heuristic" };
  const rows = await db.query<{ key: string; value: string }>(
    "SELECT key, value FROM arbor_meta WHERE key IN (?, ?, ?)",
    [SCHEMA_VERSION_KEY, TEXT_SEARCH_CONFIG_KEY, TOKEN_ESTIMATE_KEY],
  );
  const value = (key: string) => rows.find((row) => row.key === key)?.value;
  const version = Number(value(SCHEMA_VERSION_KEY) ?? 0);
  return {
    version: Number.isInteger(version) && version >= 0 ? version : 0,
    config: value(TEXT_SEARCH_CONFIG_KEY),
    tokenEstimate:
      value(TOKEN_ESTIMATE_KEY) === "multilingual"
        ? "multilingual"
        : "heuristic",
  };
}

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
