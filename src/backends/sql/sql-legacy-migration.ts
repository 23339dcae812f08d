import {
  decodeMessage,
  searchableText,
} from "../../session/messages/message-codec.js";
import { spaceCjk } from "../../session/text/search-terms.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import {
  createCompactionTable,
  createMessageIndexTable,
  createMessageTable,
  createSearchEntryTable,
  createSearchEntryTables,
} from "./sql-ddl.js";

/** Rows copied into a search index per statement batch, so a large store never loads at once. */
const REINDEX_BATCH = 500;

/**
 * Converts the tables of a database written by the reference implementation (agents@0.22) to
 * Arbor's schema (docs/behavior/storage.md). Each table is detected on its own by the absence of a `seq`
 * column, rebuilt with `seq` assigned in the old `created_at, rowid` order, and its legacy
 * `YYYY-MM-DD HH:MM:SS` timestamps become ISO-8601 (`YYYY-MM-DDTHH:MM:SS.000Z`). The search
 * indexes, whose rowids were unrelated to the rows, are rebuilt with `rowid = seq`. The keyed
 * context-block and session-registry tables keep their rows; only their timestamps become ISO.
 *
 * Must run inside the caller's transaction: a failure part-way leaves the database as it was.
 */
export function migrateLegacyTables(agent: SqlProvider): void {
  if (isLegacyTable(agent, "assistant_messages")) migrateMessages(agent);
  if (isLegacyTable(agent, "assistant_compactions")) migrateCompactions(agent);
  if (isLegacyTable(agent, "cf_agents_search_entries"))
    migrateSearchEntries(agent);
  convertKeyedTableTimestamps(agent);
}

/** True when `table` exists and has no `seq` column, i.e. it was created by the reference. */
export function isLegacyTable(agent: SqlProvider, table: string): boolean {
  const ddl = tableDdl(agent, table);
  return ddl !== null && !SEQ_COLUMN.test(ddl);
}

// --- Internal helpers ---

function tableDdl(agent: SqlProvider, table: string): string | null {
  const rows = agent.sql<{ sql: string | null }>`
    SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ${table}`;
  return rows[0]?.sql ?? null;
}

/**
 * The context-block and session-registry tables keep their keys, so they are not rebuilt; only
 * their legacy `CURRENT_TIMESTAMP` values become ISO, so every time Arbor returns sorts and parses
 * alike. Values already in another form, or that do not parse as a time, are left alone. The
 * pattern is short: Durable Object SQLite refuses a GLOB pattern as long as one spelling out
 * each digit class ("LIKE or GLOB pattern too complex"), which failed the first block write of
 * an object whose context-block table was there before Arbor's schema.
 */
function convertKeyedTableTimestamps(agent: SqlProvider): void {
  if (
    /\bupdated_at\b/i.test(tableDdl(agent, "cf_agents_context_blocks") ?? "")
  ) {
    agent.sql`UPDATE cf_agents_context_blocks SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', updated_at)
      WHERE updated_at GLOB '????-??-?? ??:??:??' AND strftime('%Y-%m-%dT%H:%M:%fZ', updated_at) IS NOT NULL`;
  }
  const registry = tableDdl(agent, "assistant_sessions") ?? "";
  if (/\bcreated_at\b/i.test(registry)) {
    agent.sql`UPDATE assistant_sessions SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', created_at)
      WHERE created_at GLOB '????-??-?? ??:??:??' AND strftime('%Y-%m-%dT%H:%M:%fZ', created_at) IS NOT NULL`;
  }
  if (/\bupdated_at\b/i.test(registry)) {
    agent.sql`UPDATE assistant_sessions SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', updated_at)
      WHERE updated_at GLOB '????-??-?? ??:??:??' AND strftime('%Y-%m-%dT%H:%M:%fZ', updated_at) IS NOT NULL`;
  }
}

/** A `seq` column definition right after `(` or `,` in a CREATE TABLE statement. */
const SEQ_COLUMN = /[(,]\s*["'`[]?seq["'`\]]?\s+INTEGER/i;

// SQLite's strftime parses both the legacy `YYYY-MM-DD HH:MM:SS` and ISO input and prints UTC
// with milliseconds; text it cannot parse is kept rather than lost.

function migrateMessages(agent: SqlProvider): void {
  agent.sql`DROP TABLE IF EXISTS arbor_migrating_messages`;
  createMessageTable(agent, "arbor_migrating_messages");
  agent.sql`INSERT INTO arbor_migrating_messages (id, session_id, parent_id, role, content, created_at)
    SELECT id, COALESCE(session_id, ''), parent_id, COALESCE(role, ''), COALESCE(content, ''),
      COALESCE(strftime('%Y-%m-%dT%H:%M:%fZ', created_at), created_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    FROM assistant_messages
    ORDER BY created_at, rowid`;
  agent.sql`DROP TABLE assistant_messages`;
  agent.sql`ALTER TABLE arbor_migrating_messages RENAME TO assistant_messages`;
  agent.sql`DROP TABLE IF EXISTS assistant_fts`;
  createMessageIndexTable(agent);

  let after = 0;
  for (;;) {
    const rows = agent.sql<{
      seq: number;
      id: string;
      session_id: string;
      role: string;
      content: string;
    }>`SELECT seq, id, session_id, role, content FROM assistant_messages
      WHERE seq > ${after} ORDER BY seq LIMIT ${REINDEX_BATCH}`;
    for (const row of rows) {
      const message = decodeMessage(row.content);
      const text = message ? searchableText(message) : "";
      if (text.length === 0) continue;
      agent.sql`INSERT INTO assistant_fts (rowid, id, session_id, role, content)
        VALUES (${row.seq}, ${row.id}, ${row.session_id}, ${row.role}, ${spaceCjk(text)})`;
    }
    if (rows.length < REINDEX_BATCH) break;
    after = rows.at(-1)!.seq;
  }
}

function migrateCompactions(agent: SqlProvider): void {
  agent.sql`DROP TABLE IF EXISTS arbor_migrating_compactions`;
  createCompactionTable(agent, "arbor_migrating_compactions");
  agent.sql`INSERT INTO arbor_migrating_compactions
      (id, session_id, summary, from_message_id, to_message_id, created_at)
    SELECT id, COALESCE(session_id, ''), COALESCE(summary, ''), from_message_id, to_message_id,
      COALESCE(strftime('%Y-%m-%dT%H:%M:%fZ', created_at), created_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    FROM assistant_compactions
    WHERE id IS NOT NULL AND from_message_id IS NOT NULL AND to_message_id IS NOT NULL
    ORDER BY created_at, rowid`;
  agent.sql`DROP TABLE assistant_compactions`;
  agent.sql`ALTER TABLE arbor_migrating_compactions RENAME TO assistant_compactions`;
}

function migrateSearchEntries(agent: SqlProvider): void {
  agent.sql`DROP TABLE IF EXISTS arbor_migrating_search_entries`;
  createSearchEntryTable(agent, "arbor_migrating_search_entries");
  agent.sql`INSERT INTO arbor_migrating_search_entries (label, key, content, created_at, updated_at)
    SELECT label, key, COALESCE(content, ''),
      COALESCE(strftime('%Y-%m-%dT%H:%M:%fZ', created_at), created_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
      COALESCE(strftime('%Y-%m-%dT%H:%M:%fZ', updated_at), updated_at,
        strftime('%Y-%m-%dT%H:%M:%fZ', created_at), created_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    FROM cf_agents_search_entries
    WHERE label IS NOT NULL AND key IS NOT NULL
    ORDER BY created_at, rowid`;
  agent.sql`DROP TABLE cf_agents_search_entries`;
  agent.sql`ALTER TABLE arbor_migrating_search_entries RENAME TO cf_agents_search_entries`;
  agent.sql`DROP TABLE IF EXISTS cf_agents_search_fts`;
  createSearchEntryTables(agent);

  let after = 0;
  for (;;) {
    const rows = agent.sql<{
      seq: number;
      label: string;
      key: string;
      content: string;
    }>`
      SELECT seq, label, key, content FROM cf_agents_search_entries
      WHERE seq > ${after} ORDER BY seq LIMIT ${REINDEX_BATCH}`;
    for (const row of rows) {
      agent.sql`INSERT INTO cf_agents_search_fts (rowid, label, key, content)
        VALUES (${row.seq}, ${row.label}, ${row.key}, ${spaceCjk(row.content)})`;
    }
    if (rows.length < REINDEX_BATCH) break;
    after = rows.at(-1)!.seq;
  }
}
