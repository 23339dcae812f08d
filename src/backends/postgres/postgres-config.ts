import type { PostgresQueryable } from "./postgres-client.js";

// Per-session settings in `assistant_config`, shared by the message store and the registry so
// both read and write the same rows the same way.

/** A per-session value, or `null`. */
export async function readConfig(
  db: PostgresQueryable,
  sessionId: string,
  key: string,
): Promise<string | null> {
  const [row] = await db.query<{ value: string }>(
    "SELECT value FROM assistant_config WHERE session_id = ? AND key = ?",
    [sessionId, key],
  );
  return row?.value ?? null;
}

/** Sets a per-session value, or with `null` deletes it. */
export async function writeConfig(
  db: PostgresQueryable,
  sessionId: string,
  key: string,
  value: string | null,
): Promise<void> {
  if (value === null) {
    await db.query(
      "DELETE FROM assistant_config WHERE session_id = ? AND key = ?",
      [sessionId, key],
    );
    return;
  }
  await db.query(
    `INSERT INTO assistant_config (session_id, key, value) VALUES (?, ?, ?)
    ON CONFLICT (session_id, key) DO UPDATE SET value = EXCLUDED.value`,
    [sessionId, key, value],
  );
}
