import { ArborError } from "../../session/errors/index.js";
import type { StoreTokenEstimate } from "../../session/contracts/provider.js";
import type { PostgresQueryable } from "./postgres-client.js";
import {
  DEFAULT_TEXT_SEARCH_CONFIG,
  POSTGRES_SCHEMA_VERSION,
  SCHEMA_VERSION_KEY,
  TEXT_SEARCH_CONFIG_KEY,
  TOKEN_ESTIMATE_KEY,
} from "./postgres-meta.js";

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

/** Forgets what was read for `db`: the schema was just applied or upgraded (postgres-migrate.ts). */
export function forgetSettings(db: object): void {
  settingsCache.delete(db);
}

/** What `arbor_meta` holds for the providers and for schema application. */
export interface Meta {
  version: number;
  config: string | undefined;
  tokenEstimate: StoreTokenEstimate;
}

/** `arbor_meta` as it is; version 0 and no config when the table does not exist yet. */
export async function readMeta(db: PostgresQueryable): Promise<Meta> {
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

/** `SCHEMA_VERSION`: the database was written by a newer Arbor than this one. */
export function newerSchema(version: number): ArborError {
  return new ArborError(
    "SCHEMA_VERSION",
    `[arbor] [postgres] The database has schema version ${version}, newer than this Arbor understands (${POSTGRES_SCHEMA_VERSION}). Upgrade arbor.`,
  );
}

// --- Internal helpers ---

const settingsCache = new WeakMap<object, Promise<PostgresSettings>>();

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

function missingSchema(detail: string): ArborError {
  return new ArborError(
    "SCHEMA_MISSING",
    `[arbor] [postgres] The database ${detail}. Apply Arbor's schema once with applyPostgresSchema(client) or POSTGRES_SCHEMA_SQL (docs/postgres.md).`,
  );
}
