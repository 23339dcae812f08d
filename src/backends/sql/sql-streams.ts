/**
 * Chat streams on a `sql` store (SQLite through `openSqlite()`, a Durable Object): the optional
 * `streams` capability. Two tables of their own, created on first use, so a store that never
 * streams a chat answer is not changed and the schema version stays as it is. Every method is
 * one transaction (`atomically`), so processes sharing the SQLite file agree on the active stream.
 */
import type {
  BackendStreams,
  StoredStreamRead,
} from "../../session/contracts/chat-streams.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { mapSqlErrors, sqlError } from "./sql-errors.js";
import { atomically } from "./sql-transaction.js";

/** The streams of a `sql` store. */
export function sqlStreams(agent: SqlProvider): BackendStreams {
  try {
    ensureTables(agent);
  } catch (error) {
    throw sqlError(error);
  }
  return mapSqlErrors<BackendStreams>({
    async begin(sessionId, streamId, { staleAfterMs }) {
      return atomically(agent, () => {
        const now = Date.now();
        const [current] = agent.sql<StreamRow>`
          SELECT stream_id, status, updated_at FROM arbor_chat_streams
          WHERE session_id = ${sessionId}`;
        if (
          current?.status === "active" &&
          now - Number(current.updated_at) < staleAfterMs
        )
          return false;
        agent.sql`DELETE FROM arbor_chat_stream_chunks WHERE session_id = ${sessionId}`;
        agent.sql`INSERT INTO arbor_chat_streams
            (session_id, stream_id, status, stop_requested, chunk_count, updated_at)
          VALUES (${sessionId}, ${streamId}, 'active', 0, 0, ${now})
          ON CONFLICT (session_id) DO UPDATE SET stream_id = excluded.stream_id,
            status = 'active', stop_requested = 0, chunk_count = 0, updated_at = excluded.updated_at`;
        return true;
      });
    },
    async append(sessionId, streamId, chunks) {
      return atomically(agent, () => {
        const [current] = agent.sql<StreamRow>`
          SELECT stream_id, status, stop_requested, chunk_count FROM arbor_chat_streams
          WHERE session_id = ${sessionId}`;
        if (current?.stream_id !== streamId || current.status !== "active")
          return { stopRequested: true };
        let seq = Number(current.chunk_count);
        for (const chunk of chunks) {
          agent.sql`INSERT INTO arbor_chat_stream_chunks (session_id, seq, data)
            VALUES (${sessionId}, ${seq++}, ${chunk})`;
        }
        agent.sql`UPDATE arbor_chat_streams SET chunk_count = ${seq}, updated_at = ${Date.now()}
          WHERE session_id = ${sessionId}`;
        return { stopRequested: Number(current.stop_requested) === 1 };
      });
    },
    async read(sessionId, from) {
      return atomically(agent, (): StoredStreamRead | null => {
        const [current] = agent.sql<StreamRow>`
          SELECT stream_id, status, stop_requested, chunk_count FROM arbor_chat_streams
          WHERE session_id = ${sessionId}`;
        if (!current) return null;
        const rows = agent.sql<{ data: string }>`
          SELECT data FROM arbor_chat_stream_chunks
          WHERE session_id = ${sessionId} AND seq >= ${from} ORDER BY seq`;
        return {
          streamId: current.stream_id,
          status: current.status,
          stopRequested: Number(current.stop_requested) === 1,
          chunkCount: Number(current.chunk_count),
          chunks: rows.map((row) => row.data),
        };
      });
    },
    async requestStop(sessionId) {
      const rows = agent.sql<{ stream_id: string }>`
        UPDATE arbor_chat_streams SET stop_requested = 1
        WHERE session_id = ${sessionId} AND status = 'active' RETURNING stream_id`;
      return rows.length > 0;
    },
    async finish(sessionId, streamId) {
      agent.sql`UPDATE arbor_chat_streams SET status = 'done', updated_at = ${Date.now()}
        WHERE session_id = ${sessionId} AND stream_id = ${streamId}`;
    },
  });
}

/**
 * Drops the session's stored stream (an erase: the chunks hold the text of an answer), when the
 * store has the tables. An answer still being written is told to stop by its next append.
 */
export function eraseSqlStreams(agent: SqlProvider, sessionId: string): void {
  const tables = agent.sql<{ name: string }>`
    SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'arbor_chat_streams'`;
  if (tables.length === 0) return;
  agent.sql`DELETE FROM arbor_chat_stream_chunks WHERE session_id = ${sessionId}`;
  agent.sql`DELETE FROM arbor_chat_streams WHERE session_id = ${sessionId}`;
}

// --- Internal helpers ---

interface StreamRow {
  stream_id: string;
  status: "active" | "done";
  stop_requested: number;
  chunk_count: number;
  updated_at: number;
}

const ready = new WeakSet<SqlProvider>();

function ensureTables(agent: SqlProvider): void {
  if (ready.has(agent)) return;
  agent.sql`CREATE TABLE IF NOT EXISTS arbor_chat_streams (
    session_id TEXT PRIMARY KEY,
    stream_id TEXT NOT NULL,
    status TEXT NOT NULL,
    stop_requested INTEGER NOT NULL DEFAULT 0,
    chunk_count INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL
  )`;
  agent.sql`CREATE TABLE IF NOT EXISTS arbor_chat_stream_chunks (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  )`;
  ready.add(agent);
}
