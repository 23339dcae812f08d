import type { SessionInfo } from "../../session/contracts/session-info.js";
import { invalidArgument } from "../../session/errors/index.js";
import type { PostgresQueryable } from "./postgres-client.js";
import { TIMESTAMPTZ_PARAM } from "./postgres-sql.js";

// A session's row in `assistant_sessions`, apart from the registry (postgres-registry.ts): a
// session provider registers the session it first writes to
// (docs/behavior/manager.md#sessions-written-without-the-manager) with `insertSessionRowIfAbsent`
// alone, so a process that uses `Session` without the manager does not load the registry's
// listing and search.

/**
 * Inserts the registry row unless the id has one: how a session written without the manager gets
 * registered by its first message (docs/behavior/manager.md#sessions-written-without-the-manager).
 */
export async function insertSessionRowIfAbsent(
  db: PostgresQueryable,
  info: SessionInfo,
): Promise<void> {
  await insertSessionRow(db, info, "ON CONFLICT (id) DO NOTHING");
}

/** A bound ISO timestamp as stored: `timestamptz` at millisecond precision. */
export const TIMESTAMP_PARAM = `date_trunc('milliseconds', ${TIMESTAMPTZ_PARAM})`;

/** A timestamp to bind, as ISO-8601 UTC; `INVALID_ARGUMENT` for one that is not a date. */
export function registryTimestamp(value: unknown, name: string): string {
  const time = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) {
    throw invalidArgument(
      `[postgres] Session \`${name}\` must be an ISO-8601 timestamp, got ${JSON.stringify(value)}`,
    );
  }
  return new Date(time).toISOString();
}

/** Inserts the registry row of `info`, `onConflict` deciding what happens when the id has one. */
export async function insertSessionRow(
  db: PostgresQueryable,
  info: SessionInfo,
  onConflict: string,
  configJson?: string,
): Promise<void> {
  const row = `INSERT INTO assistant_sessions (id, name, parent_session_id, model, source,
        input_tokens, output_tokens, estimated_cost, end_reason, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?::numeric, ?::numeric, ?::double precision, ?,
        ${TIMESTAMP_PARAM}, ${TIMESTAMP_PARAM}) ${onConflict}`;
  await db.query(
    configJson === undefined
      ? row
      : `WITH inserted AS (${row} RETURNING id)
        INSERT INTO assistant_config (session_id, key, value)
        SELECT inserted.id, entry.key, entry.value
        FROM inserted CROSS JOIN json_each_text(?::text::json) AS entry (key, value)
        ON CONFLICT (session_id, key) DO UPDATE SET value = EXCLUDED.value`,
    [
      info.id,
      info.name,
      info.parent_session_id ?? null,
      info.model ?? null,
      info.source ?? null,
      info.input_tokens ?? 0,
      info.output_tokens ?? 0,
      info.estimated_cost ?? 0,
      info.end_reason ?? null,
      registryTimestamp(info.created_at, "created_at"),
      registryTimestamp(info.updated_at, "updated_at"),
      ...(configJson === undefined ? [] : [configJson]),
    ],
  );
}
