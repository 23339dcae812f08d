/** SQL fragments shared by the Postgres providers. */

/** A `timestamptz` column as ISO-8601 UTC with milliseconds, whatever the driver does with dates. */
export function isoSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/**
 * A `json` value from one bound parameter holding JSON text (`JSON.stringify` of it). The
 * parameter is declared `text` and cast in SQL: a driver that serialises by the type the server
 * describes (postgres.js) would `JSON.stringify` a parameter declared `json` a second time,
 * storing a JSON string; every driver binds a `text` string as it is.
 */
export const JSON_PARAM = "?::text::json";

/** `JSON_PARAM` as `jsonb`. */
export const JSONB_PARAM = "?::text::jsonb";

/**
 * SQL that records one change (`arbor_record_change()`, postgres-change-log.ts) and returns its
 * seq; three `?`: session id, type, ids as a JSON array. Runs inside the write's own statement or
 * transaction, so a failed write records nothing.
 */
export const RECORD_CHANGE_SQL = `arbor_record_change(?, ?, ${JSONB_PARAM})`;

/**
 * A `timestamptz` from one bound ISO-8601 string, declared `text` so no driver converts it
 * through a JavaScript `Date` (which would drop microseconds or throw on a bad value).
 */
export const TIMESTAMPTZ_PARAM = "?::text::timestamptz";

/**
 * A `text[]` from one bound parameter holding a JSON array (`JSON.stringify(ids)`): drivers
 * differ in how they bind arrays, every driver binds a string.
 */
export const TEXT_ARRAY_SQL = `ARRAY(SELECT json_array_elements_text(${JSON_PARAM}))`;

/**
 * The latest leaf of the session bound to `?`: the newest childless row, found backwards on
 * `(session_id, seq)`; usually the first row read. `OFFSET 0` stops the planner from turning the
 * child check into an anti-join, which with stale statistics materializes every row of the
 * session on each call; as a correlated probe it is one `(session_id, parent_id)` index step.
 */
export const LATEST_LEAF_SQL = `SELECT m.id FROM assistant_messages AS m
  WHERE m.session_id = ?
    AND NOT EXISTS (SELECT 1 FROM assistant_messages AS c
      WHERE c.session_id = m.session_id AND c.parent_id = m.id OFFSET 0)
  ORDER BY m.seq DESC LIMIT 1`;

/** Rows with `count(*)`/`bigint` columns come back as strings from `pg`; this reads either. */
export function toCount(value: unknown): number {
  const number = Number(value ?? 0);
  return Number.isFinite(number) ? number : 0;
}

/**
 * The registry search filters (`sessionIds`, `ownerId`) as SQL conditions on `column` (a
 * `session_id` column), with their parameters in order; none when neither is given.
 */
export function sessionScopeSql(
  column: string,
  options: { sessionIds?: readonly string[]; ownerId?: string },
): { conditions: string[]; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (options.sessionIds) {
    conditions.push(`${column} = ANY(${TEXT_ARRAY_SQL})`);
    params.push(JSON.stringify(options.sessionIds));
  }
  if (options.ownerId !== undefined) {
    conditions.push(`EXISTS (SELECT 1 FROM assistant_config AS owner_row
      WHERE owner_row.session_id = ${column} AND owner_row.key = 'owner' AND owner_row.value = ?)`);
    params.push(options.ownerId);
  }
  return { conditions, params };
}
