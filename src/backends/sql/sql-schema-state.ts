/**
 * What a `sql` store needs before this Arbor can use it, found by reading only, and the step that
 * applies it. Tools that only read a file (the CLI's reading commands) ask first, so a database of
 * another application, or one that needs a schema step, is refused instead of changed.
 */
import { sqlError } from "./sql-errors.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { ensureRegistryTable } from "./sql-registry-table.js";
import { recordedVersion, SCHEMA_VERSION } from "./sql-schema-version.js";

/**
 * - `current`: at this Arbor's schema version, with its session registry: readable as it is.
 * - `outdated`: Arbor's tables (or those of agents@0.22 / agents@0.32 that Arbor lifts) at an
 *   older version: `applySqlSchema()` brings it up to date.
 * - `absent`: no Arbor table at all: an empty database, or another application's.
 */
export type SqlSchemaState = "current" | "outdated" | "absent";

/**
 * The store's schema state in a few `SELECT`s: it writes nothing, so it runs on a read-only
 * connection. Throws `SCHEMA_VERSION` when a newer Arbor wrote the store.
 */
export function inspectSqlSchema(agent: SqlProvider): SqlSchemaState {
  try {
    return inspect(agent);
  } catch (error) {
    throw sqlError(error);
  }
}

/**
 * Creates or migrates the store's tables to this Arbor's version, as the first write would; an
 * older Arbor's file, or one of agents@0.22 / agents@0.32, is converted in place. Returns the
 * state it found, and the version it leaves.
 */
export function applySqlSchema(agent: SqlProvider): {
  before: SqlSchemaState;
  version: number;
} {
  const before = inspectSqlSchema(agent);
  try {
    ensureRegistryTable(agent);
  } catch (error) {
    throw sqlError(error);
  }
  return { before, version: SCHEMA_VERSION };
}

// --- Internal helpers ---

function inspect(agent: SqlProvider): SqlSchemaState {
  const version = recordedVersion(agent);
  const tables = new Set(
    agent.sql<{
      name: string;
    }>`SELECT name FROM sqlite_master WHERE type = 'table'`.map(
      (row) => row.name,
    ),
  );
  if (version === SCHEMA_VERSION)
    return tables.has("assistant_sessions") ? "current" : "outdated";
  if (version !== null) return "outdated";
  return ARBOR_TABLES.some((name) => tables.has(name)) ? "outdated" : "absent";
}

/**
 * Tables only Arbor, or the agents releases it lifts, create: their presence makes a store
 * Arbor's (at some version); `arbor_meta` records the version since Arbor's first schema.
 */
const ARBOR_TABLES = [
  "arbor_api_keys",
  "arbor_meta",
  "assistant_messages",
  "assistant_sessions",
  "cf_agents_session_messages",
];
