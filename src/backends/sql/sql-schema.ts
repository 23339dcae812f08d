import { ArborError } from "../../session/errors/index.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import {
  createMessageTables,
  createStaleIndexTable,
  secureDeleteIndex,
} from "./sql-ddl.js";
import { createMessageChunkTable } from "./sql-message-chunks.js";
import { migrateLegacyTables } from "./sql-legacy-migration.js";
import { markAllIndexed, markToolCallRowsStale } from "./sql-search.js";
import { atomically } from "./sql-transaction.js";
import { createChangeLogTable } from "./sql-changes.js";
import { liftAgents032Tables } from "./sql-legacy-032.js";
import { createAttachmentTables } from "./sql-attachments.js";

/** The `arbor_meta` key that records the version of the message-store schema. */
export const SCHEMA_VERSION_KEY = "session_schema_version";

/**
 * The ordered migrations of the message store. Applying `MIGRATIONS[i]` brings a database to
 * version `i + 1`; the version reached is recorded in `arbor_meta` under `SCHEMA_VERSION_KEY`.
 * Steps are append-only: never edit a released step, add a new one.
 */
export const MIGRATIONS: ReadonlyArray<(agent: SqlProvider) => void> = [
  // v1: Arbor's first schema. A database written by the reference (agents@0.22) is converted in place.
  (agent) => {
    migrateLegacyTables(agent);
    createMessageTables(agent);
  },
  // v2: the search index catches up lazily (appends no longer index); what v1 indexed is current.
  (agent) => markAllIndexed(agent),
  // v3: messages over 1.5 MiB of JSON are split over continuation rows (docs/behavior/storage.md).
  (agent) => {
    agent.sql`ALTER TABLE assistant_messages ADD COLUMN chunked_bytes INTEGER`;
    createMessageChunkTable(agent);
  },
  // v4: the change log behind watchChanges (docs/behavior/events-and-audit.md, "Change feed").
  (agent) => createChangeLogTable(agent),
  // v5: a database written by agents@0.32 (`cf_agents_session_*` tables) is lifted in place.
  (agent) => liftAgents032Tables(agent),
  // v6: attachments: inline file data stored once per hash, with references (docs/behavior/storage.md#attachments).
  (agent) => createAttachmentTables(agent),
  // v7: FTS5 secure-delete for good: an update or delete leaves no term of the old text in the index.
  (agent) => secureDeleteIndex(agent),
  // v8: updates and deletes record stale index rows (`arbor_fts_stale`) for the next search to redo.
  (agent) => createStaleIndexTable(agent),
  // v9: tool-call inputs are searchable (docs/behavior/search.md#tool-calls): the index rows of
  // messages that may hold a tool call are marked stale, so the next search rewrites them.
  (agent) => markToolCallRowsStale(agent),
];

/** The schema version this build of Arbor writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Creates or migrates the message-store tables once per store object. Many providers over one
 * agent share the result, so DDL runs on the first use only. Pending migrations run in one
 * transaction; a store whose recorded version is newer than this build throws `SCHEMA_VERSION`.
 */
export function ensureAgentSchema(agent: SqlProvider): void {
  if (ready.has(agent)) return;
  agent.sql`CREATE TABLE IF NOT EXISTS arbor_meta (key TEXT PRIMARY KEY, value TEXT)`;
  if (readVersion(agent) < SCHEMA_VERSION) {
    // Re-read inside the transaction: another process may have migrated in between.
    atomically(agent, () => {
      const version = readVersion(agent);
      for (let step = version; step < SCHEMA_VERSION; step++)
        MIGRATIONS[step]!(agent);
      if (version < SCHEMA_VERSION) {
        agent.sql`INSERT INTO arbor_meta (key, value) VALUES (${SCHEMA_VERSION_KEY}, ${String(SCHEMA_VERSION)})
          ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
      }
    });
  } else {
    // Idempotent: recreates a table someone dropped, costs nothing otherwise.
    createMessageTables(agent);
  }
  ready.add(agent);
}

// --- Internal helpers ---

const ready = new WeakSet<object>();

function readVersion(agent: SqlProvider): number {
  const rows = agent.sql<{
    value: string | null;
  }>`SELECT value FROM arbor_meta WHERE key = ${SCHEMA_VERSION_KEY}`;
  const version = Number(rows[0]?.value ?? 0);
  if (!Number.isInteger(version) || version < 0 || version > SCHEMA_VERSION) {
    throw new ArborError(
      "SCHEMA_VERSION",
      `[arbor] [sqlite] The message store has schema version "${rows[0]?.value}", newer than this Arbor understands (${SCHEMA_VERSION}). Upgrade arbor.`,
    );
  }
  return version;
}
