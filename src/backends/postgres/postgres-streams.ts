/**
 * Chat streams on PostgreSQL: the optional `streams` capability. Two tables of their own, created
 * on first use (so the schema version stays as it is and a database that never streams a chat
 * answer is not changed). Each method is a single statement, atomic on its own, so it works on
 * every client kind, `execute`-style connections included, and across server processes.
 */
import { sqlState } from "./postgres-errors.js";
import type {
  BackendStreams,
  StoredStreamRead,
} from "../../session/contracts/chat-streams.js";
import type { PostgresClient } from "./postgres-client.js";
import type { PostgresQueryable } from "./postgres-client.js";
import { postgresExecutor } from "./postgres-executor.js";

/** The streams of the database behind `client`. */
export async function postgresStreams(
  client: PostgresClient,
): Promise<BackendStreams> {
  const db = postgresExecutor(client);
  await ensureTables(db);
  return {
    async begin(sessionId, streamId, { staleAfterMs }) {
      const rows = await db.query<{ stream_id: string }>(
        `INSERT INTO arbor_chat_streams AS s
           (session_id, stream_id, status, stop_requested, chunk_count, updated_at)
         VALUES ($1, $2, 'active', false, 0, now())
         ON CONFLICT (session_id) DO UPDATE SET stream_id = excluded.stream_id,
           status = 'active', stop_requested = false, chunk_count = 0, updated_at = now()
         WHERE s.status <> 'active' OR s.updated_at < now() - $3 * interval '1 millisecond'
         RETURNING s.stream_id`,
        [sessionId, streamId, staleAfterMs],
      );
      if (rows.length === 0) return false;
      await db.query(
        `DELETE FROM arbor_chat_stream_chunks WHERE session_id = $1 AND stream_id <> $2`,
        [sessionId, streamId],
      );
      return true;
    },
    async append(sessionId, streamId, chunks) {
      const rows = await db.query<{ stop_requested: boolean }>(
        `WITH s AS (
           UPDATE arbor_chat_streams SET chunk_count = chunk_count + $3, updated_at = now()
           WHERE session_id = $1 AND stream_id = $2 AND status = 'active'
           RETURNING chunk_count - $3 AS base, stop_requested
         ), added AS (
           INSERT INTO arbor_chat_stream_chunks (session_id, stream_id, seq, data)
           SELECT $1, $2, s.base + c.ord - 1, c.data
           FROM s, json_array_elements_text($4::json) WITH ORDINALITY AS c(data, ord)
         )
         SELECT stop_requested FROM s`,
        [sessionId, streamId, chunks.length, JSON.stringify(chunks)],
      );
      return { stopRequested: rows[0]?.stop_requested ?? true };
    },
    async read(sessionId, from) {
      const [current] = await db.query<StreamRow>(
        `SELECT stream_id, status, stop_requested, chunk_count
         FROM arbor_chat_streams WHERE session_id = $1`,
        [sessionId],
      );
      if (!current) return null;
      const rows = await db.query<{ data: string }>(
        `SELECT data FROM arbor_chat_stream_chunks
         WHERE session_id = $1 AND stream_id = $2 AND seq >= $3::bigint AND seq < $4 ORDER BY seq`,
        [sessionId, current.stream_id, from, Number(current.chunk_count)],
      );
      const result: StoredStreamRead = {
        streamId: current.stream_id,
        status: current.status,
        stopRequested: current.stop_requested === true,
        chunkCount: Number(current.chunk_count),
        chunks: rows.map((row) => row.data),
      };
      return result;
    },
    async requestStop(sessionId) {
      const rows = await db.query(
        `UPDATE arbor_chat_streams SET stop_requested = true
         WHERE session_id = $1 AND status = 'active' RETURNING stream_id`,
        [sessionId],
      );
      return rows.length > 0;
    },
    async finish(sessionId, streamId) {
      await db.query(
        `UPDATE arbor_chat_streams SET status = 'done', updated_at = now()
         WHERE session_id = $1 AND stream_id = $2`,
        [sessionId, streamId],
      );
    },
  };
}

/**
 * Drops the session's stored stream (an erase: the chunks hold the text of an answer), when the
 * database has the tables. `?` placeholders: it runs inside the erase's transaction.
 */
export async function erasePostgresStreams(
  db: PostgresQueryable,
  sessionId: string,
): Promise<void> {
  const [found] = await db.query<{ present: boolean }>(
    "SELECT to_regclass('arbor_chat_streams') IS NOT NULL AS present",
  );
  if (!found?.present) return;
  await db.query("DELETE FROM arbor_chat_stream_chunks WHERE session_id = ?", [
    sessionId,
  ]);
  await db.query("DELETE FROM arbor_chat_streams WHERE session_id = ?", [
    sessionId,
  ]);
}

// --- Internal helpers ---

interface StreamRow {
  stream_id: string;
  status: "active" | "done";
  stop_requested: boolean;
  chunk_count: number | string;
}

const TABLES = [
  `CREATE TABLE IF NOT EXISTS arbor_chat_streams (
    session_id TEXT PRIMARY KEY,
    stream_id TEXT NOT NULL,
    status TEXT NOT NULL,
    stop_requested BOOLEAN NOT NULL DEFAULT false,
    chunk_count INTEGER NOT NULL DEFAULT 0,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
  )`,
  `CREATE TABLE IF NOT EXISTS arbor_chat_stream_chunks (
    session_id TEXT NOT NULL,
    stream_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, stream_id, seq)
  )`,
];

/**
 * Two processes creating the tables at once can collide inside PostgreSQL's catalog (a unique
 * violation on the type name, or "already exists"); the loser finds them made and goes on.
 */
async function ensureTables(db: PostgresQueryable): Promise<void> {
  for (const statement of TABLES) {
    try {
      await db.query(statement);
    } catch (error) {
      const code = sqlState(error);
      if (code !== "23505" && code !== "42P07") throw error;
    }
  }
}
