import { mapSqlErrors } from "./sql-errors.js";
import {
  blockVersionFromRow,
  type BlockVersionRow,
} from "../../session/messages/stored-rows.js";
import type {
  BlockHistoryStore,
  BlockVersion,
} from "../../session/contracts/block-history.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { recordChange } from "./sql-changes.js";
import { ensureAgentSchema } from "./sql-schema.js";
import { nowIso } from "../../session/state/now-iso.js";
import { atomically } from "./sql-transaction.js";
import { lazyTableExists } from "./sql-lazy-table.js";

const tablesReady = new WeakSet<object>();

/** Block history (docs/behavior/context-blocks.md) in `arbor_block_history`, scoped by session id and label. */
export class AgentBlockHistory implements BlockHistoryStore {
  constructor(
    private readonly agent: SqlProvider,
    private readonly sessionId: string,
  ) {}

  record(
    label: string,
    entry: Omit<BlockVersion, "version" | "at"> & { at?: string },
  ): BlockVersion {
    ensureBlockHistoryTable(this.agent);
    // The write's change notice goes in the change log, which the store's schema holds.
    ensureAgentSchema(this.agent);
    const at = entry.at ?? nowIso();
    return atomically(this.agent, () => {
      const [last] = this.agent.sql<{ version: number | null }>`
        SELECT MAX(version) AS version FROM arbor_block_history
        WHERE session_id = ${this.sessionId} AND label = ${label}`;
      const version = (last?.version ?? 0) + 1;
      this.agent.sql`INSERT INTO arbor_block_history
        (session_id, label, version, content, previous_content, source, tool_call_id, at)
        VALUES (${this.sessionId}, ${label}, ${version}, ${entry.content}, ${entry.previousContent},
          ${entry.source}, ${entry.toolCallId ?? null}, ${at})`;
      // The change feed announces the write, in the same transaction.
      recordChange(this.agent, this.sessionId, "block", [label]);
      return blockVersionFromRow({
        version,
        content: entry.content,
        previous_content: entry.previousContent,
        source: entry.source,
        tool_call_id: entry.toolCallId ?? null,
        at,
      });
    });
  }

  list(label: string): BlockVersion[] {
    if (!lazyTableExists(this.agent, tablesReady, "arbor_block_history"))
      return [];
    return this.agent.sql<BlockVersionRow>`
      SELECT version, content, previous_content, source, tool_call_id, at
      FROM arbor_block_history WHERE session_id = ${this.sessionId} AND label = ${label}
      ORDER BY version`.map(blockVersionFromRow);
  }

  clear(): void {
    ensureBlockHistoryTable(this.agent);
    this.agent
      .sql`DELETE FROM arbor_block_history WHERE session_id = ${this.sessionId}`;
  }
}

export function ensureBlockHistoryTable(agent: SqlProvider): void {
  if (tablesReady.has(agent)) return;
  agent.sql`CREATE TABLE IF NOT EXISTS arbor_block_history (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    label TEXT NOT NULL,
    version INTEGER NOT NULL,
    content TEXT NOT NULL,
    previous_content TEXT,
    source TEXT NOT NULL,
    tool_call_id TEXT,
    at TEXT NOT NULL,
    UNIQUE (session_id, label, version)
  )`;
  tablesReady.add(agent);
}

// What leaves a method is Arbor's error, the store's own as its cause (sql-errors.ts).
mapSqlErrors(AgentBlockHistory.prototype);
