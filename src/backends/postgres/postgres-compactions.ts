import {
  compactionFromRow,
  type CompactionRow,
} from "../../session/messages/stored-rows.js";
import { assertCompactionArguments } from "../../session/tree/compaction-args.js";
import type {
  CompactionMeta,
  StoredCompaction,
} from "../../session/contracts/types.js";
import type { PostgresQueryable } from "./postgres-client.js";
import { SESSION_LOCK_SQL } from "./postgres-locking.js";
import {
  isoSql,
  JSONB_PARAM,
  RECORD_CHANGE_SQL,
  TEXT_ARRAY_SQL,
} from "./postgres-sql.js";

const COLUMNS = `id, summary, from_message_id, to_message_id, ${isoSql("created_at")} AS created_at, meta::text AS meta`;

/** Stores an overlay of this session and returns it (docs/behavior/overlays.md), under the session lock. */
export async function insertCompaction(
  db: PostgresQueryable,
  sessionId: string,
  summary: string,
  fromMessageId: string,
  toMessageId: string,
  meta?: CompactionMeta,
): Promise<StoredCompaction> {
  assertCompactionArguments(summary, fromMessageId, toMessageId, "postgres");
  const id = crypto.randomUUID();
  const [row] = await db.query<CompactionRow>(
    `WITH locked AS MATERIALIZED (SELECT ${SESSION_LOCK_SQL} AS locked),
    inserted AS (
      INSERT INTO assistant_compactions
        (id, session_id, summary, from_message_id, to_message_id, created_at, meta)
      SELECT ?, ?, ?, ?, ?, clock_timestamp(), ${JSONB_PARAM} FROM locked
      RETURNING ${COLUMNS}
    )
    SELECT inserted.*, ${RECORD_CHANGE_SQL} AS change FROM inserted`,
    [
      sessionId,
      id,
      sessionId,
      summary,
      fromMessageId,
      toMessageId,
      meta != null ? JSON.stringify(meta) : null,
      sessionId,
      "compaction",
      JSON.stringify([id]),
    ],
  );
  return compactionFromRow(row!);
}

/** Every overlay of the session, superseded ones included, in insertion order. */
export async function readCompactions(
  db: PostgresQueryable,
  sessionId: string,
): Promise<StoredCompaction[]> {
  const rows = await db.query<CompactionRow>(
    `SELECT ${COLUMNS} FROM assistant_compactions WHERE session_id = ? ORDER BY seq`,
    [sessionId],
  );
  return rows.map(compactionFromRow);
}

/** The overlays of the session with an endpoint among `messageIds`, oldest first. */
export async function readCompactionsTouching(
  db: PostgresQueryable,
  sessionId: string,
  messageIds: readonly string[],
): Promise<StoredCompaction[]> {
  const ids = JSON.stringify(messageIds);
  const rows = await db.query<CompactionRow>(
    `SELECT ${COLUMNS} FROM assistant_compactions
    WHERE session_id = ?
      AND (from_message_id = ANY(${TEXT_ARRAY_SQL}) OR to_message_id = ANY(${TEXT_ARRAY_SQL}))
    ORDER BY seq`,
    [sessionId, ids, ids],
  );
  return rows.map(compactionFromRow);
}

/** Deletes one overlay of the session under the session lock; `false` if it has no such overlay. */
export async function deleteCompactionRow(
  db: PostgresQueryable,
  sessionId: string,
  id: string,
): Promise<boolean> {
  const rows = await db.query(
    `WITH locked AS MATERIALIZED (SELECT ${SESSION_LOCK_SQL} AS locked),
    removed AS (
      DELETE FROM assistant_compactions USING locked
      WHERE session_id = ? AND id = ? RETURNING id
    )
    SELECT ${RECORD_CHANGE_SQL} AS change FROM removed`,
    [sessionId, sessionId, id, sessionId, "compaction", JSON.stringify([id])],
  );
  return rows.length > 0;
}
