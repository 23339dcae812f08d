import { attachmentStatements } from "./postgres-attachment-ddl.js";
import {
  changeLogStatements,
  recordChangeStatements,
  resumableChangeLogStatements,
} from "./postgres-change-log-ddl.js";
import { arborStatementsV1, seedStatements } from "./postgres-ddl.js";

/**
 * The schema migrations: `MIGRATIONS[i]` brings a database to version `i + 1` with idempotent DDL
 * (also the text of `POSTGRES_SCHEMA_SQL`), for a text-search configuration. A step that must
 * first convert data written by an older schema has its upgrade in `postgres-migrate.ts`
 * (`UPGRADES`). Append-only: never edit a released step, add a new one and raise
 * `POSTGRES_SCHEMA_VERSION` (postgres-meta.ts) with it. Not loaded with arbor-memory/session:
 * `applyPostgresSchema()` loads it on its call (postgres-migrate.ts); arbor-memory/postgres's
 * `postgresSchemaSql()` and `POSTGRES_SCHEMA_SQL` import it.
 */
export const MIGRATIONS: ReadonlyArray<(config: string) => string[]> = [
  // v1: the reference DDL plus Arbor's additive tables, columns, indexes and functions. Tables the
  // reference implementation created (no `seq`) are converted in place first.
  (config) => [...seedStatements(config), ...arborStatementsV1(config)],
  // v2: the change log behind watchChanges (docs/behavior/events-and-audit.md, "Change feed").
  () => changeLogStatements(),
  // v3: attachments: inline file data stored once per hash, with references (docs/behavior/storage.md#attachments).
  () => attachmentStatements(),
  // v4: the change log without its database-wide lock: concurrent writers of different sessions
  // no longer serialize (docs/behavior/events-and-audit.md, "Change feed").
  () => recordChangeStatements(),
  // v5: tool-call inputs are searchable (docs/behavior/search.md#tool-calls); no DDL, the data
  // step (`upgradeToolInputSearchText`) rebuilds the search text of messages with tool calls.
  () => [],
  // v6: change-feed positions that resume across sessions and processes: the writing
  // transaction's id per change-log row, and the trimmed horizon (docs/behavior/events-and-audit.md, "Resuming").
  () => resumableChangeLogStatements(),
  // v7: the sessions a session started, by parent: each listed row's child count and the list's
  // parent filter are index steps, not a scan of every session per row (docs/server.md#sessions).
  () => [
    `CREATE INDEX IF NOT EXISTS idx_assistant_sessions_parent
	ON assistant_sessions (parent_session_id)`,
  ],
];
