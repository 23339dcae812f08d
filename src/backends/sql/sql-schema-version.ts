import { ArborError } from "../../session/errors/index.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";

/** The `arbor_meta` key that records the version of the message-store schema. */
export const SCHEMA_VERSION_KEY = "session_schema_version";

/**
 * The schema version this build of Arbor writes: the number of steps in `MIGRATIONS`
 * (sql-schema.ts, which checks the two agree). Kept apart from the list so the write path can
 * check the version without importing every migration.
 */
export const SCHEMA_VERSION = 10;

/**
 * The recorded version in one query; `null` when `arbor_meta` does not exist yet. Throws
 * `SCHEMA_VERSION` for a version newer than this build.
 */
export function recordedVersion(agent: SqlProvider): number | null {
  let rows: Array<{ value: string | null }>;
  try {
    rows = readVersion(agent);
  } catch (error) {
    if (!hasMetaTable(agent)) return null;
    // Another process may have created the table between the failed read and the check (two
    // processes opening one new file): read again; an error now is a real one.
    try {
      rows = readVersion(agent);
    } catch {
      throw error;
    }
  }
  const version = Number(rows[0]?.value ?? 0);
  if (!Number.isInteger(version) || version < 0 || version > SCHEMA_VERSION)
    throw newerSchema(rows[0]?.value);
  return version;
}

/**
 * Called when a write fails: throws the typed `SCHEMA_VERSION` error when another process has
 * meanwhile moved the store to a newer schema than this build understands (a rolling deploy), so
 * an old process stops cleanly instead of failing on a table it does not know. Returns when the
 * schema is not the cause; the caller rethrows its own error.
 */
export function assertSchemaNotNewer(agent: SqlProvider): void {
  try {
    recordedVersion(agent);
  } catch (error) {
    if (error instanceof ArborError) throw error;
  }
}

// --- Internal helpers ---

function readVersion(agent: SqlProvider): Array<{ value: string | null }> {
  return agent.sql`SELECT value FROM arbor_meta WHERE key = ${SCHEMA_VERSION_KEY}`;
}

function hasMetaTable(agent: SqlProvider): boolean {
  const [row] = agent.sql<{ n: number }>`
    SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'arbor_meta'`;
  return Number(row?.n ?? 0) > 0;
}

function newerSchema(value: unknown): ArborError {
  return new ArborError(
    "SCHEMA_VERSION",
    `[arbor] [sqlite] The message store has schema version "${String(value)}", newer than this Arbor understands (${SCHEMA_VERSION}). Upgrade arbor.`,
  );
}
