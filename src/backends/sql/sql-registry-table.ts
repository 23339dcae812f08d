import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import type { SessionInfo } from "../../session/contracts/session-info.js";
import { ensureAgentSchema } from "./sql-schema.js";

// The registry's table of a `sql` store, apart from the registry: a session provider registers
// the session it first writes to (docs/behavior/manager.md#sessions-written-without-the-manager)
// with these two functions alone, so a Durable Object that uses `Session` without the manager
// does not load the registry's listing and search.

const ready = new WeakSet<object>();

/** Creates `assistant_sessions` (and the message schema) once per store, if new. */
export function ensureRegistryTable(agent: SqlProvider): void {
  if (ready.has(agent)) return;
  ensureAgentSchema(agent);
  agent.sql`CREATE TABLE IF NOT EXISTS assistant_sessions (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    parent_session_id TEXT,
    model TEXT,
    source TEXT,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    estimated_cost REAL DEFAULT 0,
    end_reason TEXT,
    created_at TEXT,
    updated_at TEXT
  )`;
  agent.sql`CREATE INDEX IF NOT EXISTS idx_assistant_sessions_updated
    ON assistant_sessions (updated_at)`;
  ready.add(agent);
}

/** Whether the session has its registry row. */
export function isRegistered(agent: SqlProvider, id: string): boolean {
  ensureRegistryTable(agent);
  return (
    [
      ...agent.sql<{
        one: number;
      }>`SELECT 1 AS one FROM assistant_sessions WHERE id = ${id}`,
    ].length > 0
  );
}

/**
 * Inserts the row unless the id has one. Only the columns every `assistant_sessions` has, older
 * and hand-made ones included, are named; the rest take their defaults.
 */
export function registerIfAbsent(agent: SqlProvider, info: SessionInfo): void {
  ensureRegistryTable(agent);
  agent.sql`INSERT INTO assistant_sessions (id, name, created_at, updated_at)
    VALUES (${info.id}, ${info.name}, ${info.created_at}, ${info.updated_at})
    ON CONFLICT (id) DO NOTHING`;
}
