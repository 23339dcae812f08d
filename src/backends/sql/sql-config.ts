import type { SqlProvider } from "../../session/contracts/sql-provider.js";

// Per-session settings in `assistant_config` (the branch pointer, owner, metadata), read and
// written by the message store; the registry reaches the same rows.

/** A per-session value, or `null`. */
export function readConfig(
  agent: SqlProvider,
  sessionId: string,
  key: string,
): string | null {
  const [row] = agent.sql<{ value: string }>`
    SELECT value FROM assistant_config WHERE session_id = ${sessionId} AND key = ${key}`;
  return row?.value ?? null;
}

/** Sets a per-session value, or with `null` deletes it. */
export function writeConfig(
  agent: SqlProvider,
  sessionId: string,
  key: string,
  value: string | null,
): void {
  if (value === null) {
    agent.sql`DELETE FROM assistant_config WHERE session_id = ${sessionId} AND key = ${key}`;
  } else {
    agent.sql`INSERT INTO assistant_config (session_id, key, value) VALUES (${sessionId}, ${key}, ${value})
        ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value`;
  }
}
