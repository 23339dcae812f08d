import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { sqlTemplate } from "./sql-transaction.js";

/** The Arbor DDL of the message store (docs/behavior/storage.md), every statement `IF NOT EXISTS`. */
export function createMessageTables(agent: SqlProvider): void {
  createMessageTable(agent, "assistant_messages");
  agent.sql`CREATE INDEX IF NOT EXISTS idx_assistant_messages_session_parent
    ON assistant_messages (session_id, parent_id)`;
  agent.sql`CREATE INDEX IF NOT EXISTS idx_assistant_messages_session_seq
    ON assistant_messages (session_id, seq)`;
  createCompactionTable(agent, "assistant_compactions");
  agent.sql`CREATE INDEX IF NOT EXISTS idx_assistant_compactions_session_seq
    ON assistant_compactions (session_id, seq)`;
  createMessageIndexTable(agent);
  agent.sql`CREATE TABLE IF NOT EXISTS assistant_config (
    session_id TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (session_id, key)
  )`;
}

/** The message search index: `rowid` = the message's `seq`; `content` holds the CJK-spaced text. */
export function createMessageIndexTable(agent: SqlProvider): void {
  agent.sql`CREATE VIRTUAL TABLE IF NOT EXISTS assistant_fts USING fts5(
    id UNINDEXED, session_id UNINDEXED, role UNINDEXED, content, tokenize = 'porter unicode61'
  )`;
}

/**
 * The `seq`s of indexed messages whose index row is out of date (updated or deleted since it was
 * indexed). An update or delete only records its `seq` here, in its own transaction; the next
 * catch-up (`catchUpIndex`, sql-search.ts) rewrites those index rows, so writes never pay FTS5's
 * `secure-delete`. An `arbor_` name: `assistant_fts_*` names belong to FTS5's shadow tables.
 */
export function createStaleIndexTable(agent: SqlProvider): void {
  agent.sql`CREATE TABLE IF NOT EXISTS arbor_fts_stale (seq INTEGER PRIMARY KEY)`;
}

/**
 * Turns on FTS5's `secure-delete` for the message index, a setting FTS5 stores in the index
 * itself, so every later delete or update removes the old text's terms from the segments at
 * once; then merges the index once (`optimize`), which drops the terms earlier deletes left.
 * `false` on a SQLite before 3.42, which lacks the option and keeps the old behaviour.
 */
export function secureDeleteIndex(agent: SqlProvider): boolean {
  try {
    agent.sql`INSERT INTO assistant_fts (assistant_fts, rank) VALUES ('secure-delete', 1)`;
  } catch {
    return false;
  }
  agent.sql`INSERT INTO assistant_fts (assistant_fts) VALUES ('optimize')`;
  return true;
}

/**
 * Arbor's form of the `AgentSearchProvider` tables (docs/behavior/context-blocks.md, docs/behavior/storage.md): entries keyed by `seq`,
 * unique by `(label, key)`, FTS `rowid` = entry `seq`. Created here only when a reference
 * database is migrated; the search provider creates them otherwise.
 */
export function createSearchEntryTables(agent: SqlProvider): void {
  createSearchEntryTable(agent, "cf_agents_search_entries");
  agent.sql`CREATE VIRTUAL TABLE IF NOT EXISTS cf_agents_search_fts USING fts5(
    label UNINDEXED, key UNINDEXED, content, tokenize = 'porter unicode61'
  )`;
}

/**
 * The message table, declared once: the store creates `assistant_messages` with it, and the lift of
 * a reference database rebuilds its rows into a fresh table of the same shape (`name`) before
 * renaming it.
 */
export function createMessageTable(
  agent: SqlProvider,
  name: "assistant_messages" | "arbor_migrating_messages",
): void {
  agent.sql(
    sqlTemplate(`CREATE TABLE IF NOT EXISTS ${name} (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL,
    session_id TEXT NOT NULL DEFAULT '',
    parent_id TEXT,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (session_id, id)
  )`),
  );
}

/** The compaction table, declared once like the message table (`createMessageTable`). */
export function createCompactionTable(
  agent: SqlProvider,
  name: "assistant_compactions" | "arbor_migrating_compactions",
): void {
  agent.sql(
    sqlTemplate(`CREATE TABLE IF NOT EXISTS ${name} (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL DEFAULT '',
    summary TEXT NOT NULL,
    from_message_id TEXT NOT NULL,
    to_message_id TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    meta TEXT
  )`),
  );
}

/** The search entry table, declared once like the message table (`createMessageTable`). */
export function createSearchEntryTable(
  agent: SqlProvider,
  name: "cf_agents_search_entries" | "arbor_migrating_search_entries",
): void {
  agent.sql(
    sqlTemplate(`CREATE TABLE IF NOT EXISTS ${name} (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    label TEXT NOT NULL,
    key TEXT NOT NULL,
    content TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (label, key)
  )`),
  );
}
