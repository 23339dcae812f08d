import {
  blockVersionFromRow,
  type BlockVersionRow,
} from "../../session/core/stored-rows.js";
import type {
  BlockHistoryStore,
  BlockVersion,
} from "../../session/contracts/block-history.js";
import type { PostgresExecutor } from "./postgres-client.js";
import { postgresSettings } from "./postgres-settings.js";
import { SESSION_LOCK_SQL } from "./postgres-locking.js";
import {
  isoSql,
  RECORD_CHANGE_SQL,
  TIMESTAMPTZ_PARAM,
} from "./postgres-sql.js";

/** Attempts of `record` when concurrent writers take the same version number. */
const MAX_ATTEMPTS = 20;

/** The queries behind `PostgresBlockHistory`, loaded on its first call (`postgres-lazy.ts`). */
export class PostgresBlockHistoryStore implements BlockHistoryStore {
  constructor(
    readonly db: PostgresExecutor,
    private readonly sessionId: string,
  ) {}

  async record(
    label: string,
    entry: Omit<BlockVersion, "version" | "at"> & { at?: string },
  ): Promise<BlockVersion> {
    await postgresSettings(this.db);
    for (let attempt = 1; ; attempt++) {
      try {
        // Under the session lock, as every write of the session, so the change the statement
        // records for the feed (a `block` change) commits in `seq` order.
        const [row] = await this.db.query<BlockVersionRow>(
          `WITH locked AS MATERIALIZED (SELECT ${SESSION_LOCK_SQL} AS locked),
          inserted AS (
            INSERT INTO arbor_block_history
              (session_id, label, version, content, previous_content, source, tool_call_id, at)
            SELECT ?, ?, COALESCE(MAX(h.version), 0) + 1, ?, ?, ?, ?,
              COALESCE(${TIMESTAMPTZ_PARAM}, clock_timestamp())
            FROM locked LEFT JOIN arbor_block_history AS h
              ON h.session_id = ? AND h.label = ?
            RETURNING ${COLUMNS}
          )
          SELECT inserted.*, ${RECORD_CHANGE_SQL} AS change FROM inserted`,
          [
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
          ],
        );
        return blockVersionFromRow(row!);
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  async list(label: string): Promise<BlockVersion[]> {
    await postgresSettings(this.db);
    const rows = await this.db.query<BlockVersionRow>(
      `SELECT ${COLUMNS} FROM arbor_block_history
      WHERE session_id = ? AND label = ? ORDER BY version`,
      [this.sessionId, label],
    );
    return rows.map(blockVersionFromRow);
  }

  async clear(): Promise<void> {
    await postgresSettings(this.db);
    await this.db.query(
      "DELETE FROM arbor_block_history WHERE session_id = ?",
      [this.sessionId],
    );
  }
}

// --- Internal helpers ---

const COLUMNS = `version, content, previous_content, source, tool_call_id, ${isoSql("at")} AS at`;

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "23505";
}
