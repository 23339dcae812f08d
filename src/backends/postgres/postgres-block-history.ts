import { sqlState } from "./postgres-errors.js";
import {
  blockVersionFromRow,
  type BlockVersionRow,
} from "../../session/messages/stored-rows.js";
import type {
  BlockHistoryStore,
  BlockVersion,
} from "../../session/contracts/block-history.js";
import type { PostgresClient, PostgresExecutor } from "./postgres-client.js";
import { postgresExecutor } from "./postgres-executor.js";
import { postgresSettings } from "./postgres-settings.js";
import { SESSION_LOCK_SQL } from "./postgres-locking.js";
import {
  isoSql,
  RECORD_CHANGE_SQL,
  TIMESTAMPTZ_PARAM,
} from "./postgres-sql.js";

/** Attempts of `record` over an execute-style connection when writers take the same number. */
const MAX_ATTEMPTS = 20;

/**
 * Block history (docs/behavior/context-blocks.md) in `arbor_block_history`, scoped by session id and label. Versions
 * are numbered by the database: concurrent writers from several processes each get their own
 * version (`UNIQUE (session_id, label, version)` decides, the loser retries).
 */
export class PostgresBlockHistory implements BlockHistoryStore {
  readonly #db: PostgresExecutor;

  constructor(
    client: PostgresClient,
    private readonly sessionId: string,
  ) {
    this.#db = postgresExecutor(client);
  }

  async record(
    label: string,
    entry: Omit<BlockVersion, "version" | "at"> & { at?: string },
  ): Promise<BlockVersion> {
    await postgresSettings(this.#db);
    const params = [
      this.sessionId,
      this.sessionId,
      label,
      entry.content,
      entry.previousContent,
      entry.source,
      entry.toolCallId ?? null,
      entry.at ?? null,
      this.sessionId,
      label,
      this.sessionId,
      "block",
      JSON.stringify([label]),
    ];
    // Over a Pool or Client the lock is its own statement, so the numbering statement's snapshot
    // is taken after it and sees the version the previous holder committed. In one statement the
    // snapshot predates the wait for the lock: every writer that waited reads a stale maximum and
    // collides, the losers retry together, and one can lose twenty times running (seen in CI with
    // four writers).
    if (this.#db.supportsTransactions) {
      const row = await this.#db.transaction(async (tx) => {
        await tx.query(`SELECT ${SESSION_LOCK_SQL}`, [this.sessionId]);
        const [inserted] = await tx.query<BlockVersionRow>(RECORD_SQL, params);
        return inserted!;
      });
      return blockVersionFromRow(row);
    }
    // An execute-style connection has no transaction across statements: the unique version
    // decides, and a writer that collided retries after a jittered pause.
    for (let attempt = 1; ; attempt++) {
      try {
        const [row] = await this.#db.query<BlockVersionRow>(RECORD_SQL, params);
        return blockVersionFromRow(row!);
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= MAX_ATTEMPTS) throw error;
        await sleep(Math.min(50, 2 ** attempt) * (0.5 + Math.random()));
      }
    }
  }

  async list(label: string): Promise<BlockVersion[]> {
    await postgresSettings(this.#db);
    const rows = await this.#db.query<BlockVersionRow>(
      `SELECT ${COLUMNS} FROM arbor_block_history
      WHERE session_id = ? AND label = ? ORDER BY version`,
      [this.sessionId, label],
    );
    return rows.map(blockVersionFromRow);
  }

  async clear(): Promise<void> {
    await postgresSettings(this.#db);
    await this.#db.query(
      "DELETE FROM arbor_block_history WHERE session_id = ?",
      [this.sessionId],
    );
  }
}

// --- Internal helpers ---

const COLUMNS = `version, content, previous_content, source, tool_call_id, ${isoSql("at")} AS at`;

/**
 * One version recorded under the session lock, as every write of the session, so the change the
 * statement records for the feed (a `block` change) commits in `seq` order. Numbered one past the
 * label's newest version.
 */
const RECORD_SQL = `WITH locked AS MATERIALIZED (SELECT ${SESSION_LOCK_SQL} AS locked),
  inserted AS (
    INSERT INTO arbor_block_history
      (session_id, label, version, content, previous_content, source, tool_call_id, at)
    SELECT ?, ?, COALESCE(MAX(h.version), 0) + 1, ?, ?, ?, ?,
      COALESCE(${TIMESTAMPTZ_PARAM}, clock_timestamp())
    FROM locked LEFT JOIN arbor_block_history AS h
      ON h.session_id = ? AND h.label = ?
    RETURNING ${COLUMNS}
  )
  SELECT inserted.*, ${RECORD_CHANGE_SQL} AS change FROM inserted`;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isUniqueViolation(error: unknown): boolean {
  return sqlState(error) === "23505";
}
