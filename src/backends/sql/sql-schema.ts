import {
  recordedVersion,
  SCHEMA_VERSION,
  SCHEMA_VERSION_KEY,
} from "./sql-schema-version.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import type { StoreTokenEstimate } from "../../session/contracts/provider.js";
import {
  createMessageTables,
  createStaleIndexTable,
  secureDeleteIndex,
} from "./sql-ddl.js";
import { createMessageChunkTable } from "./sql-message-chunks.js";
import { migrateLegacyTables } from "./sql-legacy-migration.js";
import { markAllIndexed, markToolCallRowsStale } from "./sql-search.js";
import { atomically } from "./sql-transaction.js";
import { createChangeLogTable, rebuildChangeLog } from "./sql-changes.js";
import { liftAgents032Tables } from "./sql-legacy-032.js";
import { createAttachmentTables } from "./sql-attachments.js";

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
  // v10: one statement per append: the change log loses AUTOINCREMENT, and triggers write the
  // append notice with the message row and trim the log (sql-changes.ts, rebuildChangeLog).
  (agent) => rebuildChangeLog(agent),
];

// The version sql-schema-version.ts names is the length of this list.
if (MIGRATIONS.length !== SCHEMA_VERSION)
  throw new Error(
    `[arbor] [sqlite] ${MIGRATIONS.length} migrations for schema version ${SCHEMA_VERSION}`,
  );

export { SCHEMA_VERSION, SCHEMA_VERSION_KEY };

/** The `arbor_meta` key that records the token estimate a store was created with. */
export const TOKEN_ESTIMATE_KEY = "token_estimate";

/**
 * Creates or migrates the message-store tables once per store object. Many providers over one
 * agent share the result, so this runs on the first use only, and costs one query when the store
 * is already at this version (the usual first request after a restart). Pending migrations run in
 * one transaction; a store whose recorded version is newer than this build throws `SCHEMA_VERSION`.
 */
export function ensureAgentSchema(agent: SqlProvider): void {
  if (ready.has(agent)) return;
  if (recordedVersion(agent) !== SCHEMA_VERSION) migrate(agent);
  ready.add(agent);
}

/**
 * The token estimate recorded when the store was created (docs/token-estimation.md):
 * `"multilingual"` for stores Arbor created since it became the default, `"heuristic"` for
 * older ones and for databases lifted from agents@0.22 or agents@0.32.
 */
export function storeTokenEstimate(agent: SqlProvider): StoreTokenEstimate {
  const [row] = agent.sql<{ value: string | null }>`
    SELECT value FROM arbor_meta WHERE key = ${TOKEN_ESTIMATE_KEY}`;
  return row?.value === "multilingual" ? "multilingual" : "heuristic";
}

// --- Internal helpers ---

const ready = new WeakSet<object>();

function migrate(agent: SqlProvider): void {
  agent.sql`CREATE TABLE IF NOT EXISTS arbor_meta (key TEXT PRIMARY KEY, value TEXT)`;
  // Re-read inside the transaction: another process may have migrated in between.
  atomically(agent, () => {
    const version = recordedVersion(agent) ?? 0;
    if (version === SCHEMA_VERSION) return;
    // A store Arbor creates now counts with the multilingual estimate; one that already holds
    // messages (an older Arbor's, or a reference database being lifted) keeps the heuristic.
    const created = version === 0 && !hasLegacyMessages(agent);
    for (let step = version; step < SCHEMA_VERSION; step++)
      MIGRATIONS[step]!(agent);
    agent.sql`INSERT INTO arbor_meta (key, value) VALUES (${SCHEMA_VERSION_KEY}, ${String(SCHEMA_VERSION)})
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
    if (created) {
      agent.sql`INSERT INTO arbor_meta (key, value) VALUES (${TOKEN_ESTIMATE_KEY}, 'multilingual')
        ON CONFLICT (key) DO NOTHING`;
    }
  });
}

/** Whether a message table of agents@0.22 or agents@0.32 (or a version-less Arbor one) exists. */
function hasLegacyMessages(agent: SqlProvider): boolean {
  const [row] = agent.sql<{ n: number }>`
    SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'
      AND name IN ('assistant_messages', 'cf_agents_session_messages')`;
  return Number(row?.n ?? 0) > 0;
}
