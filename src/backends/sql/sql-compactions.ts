import {
  compactionFromRow,
  type CompactionRow,
} from "../../session/messages/stored-rows.js";
import { assertCompactionArguments } from "../../session/tree/compaction-args.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import type {
  CompactionMeta,
  StoredCompaction,
} from "../../session/contracts/types.js";
import { nowIso } from "../../session/state/now-iso.js";
import { atomically } from "./sql-transaction.js";
import { recordChange } from "./sql-changes.js";

/** Stores an overlay of this session and records the change atomically, and returns it (docs/behavior/overlays.md). */
export function insertCompaction(
  agent: SqlProvider,
  sessionId: string,
  summary: string,
  fromMessageId: string,
  toMessageId: string,
  meta?: CompactionMeta,
): StoredCompaction {
  return atomically(agent, () => {
    assertCompactionArguments(summary, fromMessageId, toMessageId, "sqlite");
    const compaction: StoredCompaction = {
      id: crypto.randomUUID(),
      summary,
      fromMessageId,
      toMessageId,
      createdAt: nowIso(),
    };
    if (meta != null) compaction.meta = { ...meta };
    agent.sql`INSERT INTO assistant_compactions
        (id, session_id, summary, from_message_id, to_message_id, created_at, meta)
      VALUES (${compaction.id}, ${sessionId}, ${summary}, ${fromMessageId}, ${toMessageId},
        ${compaction.createdAt}, ${meta != null ? JSON.stringify(meta) : null})`;
    recordChange(agent, sessionId, "compaction", [compaction.id]);
    return compaction;
  });
}

/** Every overlay of the session, superseded ones included, in insertion order. */
export function readCompactions(
  agent: SqlProvider,
  sessionId: string,
): StoredCompaction[] {
  return agent.sql<CompactionRow>`SELECT id, summary, from_message_id, to_message_id, created_at, meta
      FROM assistant_compactions WHERE session_id = ${sessionId} ORDER BY seq`.map(
    compactionFromRow,
  );
}

/** The overlays of the session with an endpoint among `messageIds` (a JSON array), oldest first. */
export function readCompactionsTouching(
  agent: SqlProvider,
  sessionId: string,
  messageIdsJson: string,
): StoredCompaction[] {
  return agent.sql<CompactionRow>`SELECT id, summary, from_message_id, to_message_id, created_at, meta
      FROM assistant_compactions
      WHERE session_id = ${sessionId}
        AND (from_message_id IN (SELECT value FROM json_each(${messageIdsJson}))
          OR to_message_id IN (SELECT value FROM json_each(${messageIdsJson})))
      ORDER BY seq`.map(compactionFromRow);
}

/** Deletes one overlay of the session and records the change atomically; `false` if it has no such overlay. */
export function deleteCompactionRow(
  agent: SqlProvider,
  sessionId: string,
  id: string,
): boolean {
  return atomically(agent, () => {
    const deleted = agent.sql<{ id: string }>`
      DELETE FROM assistant_compactions WHERE session_id = ${sessionId} AND id = ${id} RETURNING id`;
    if (deleted.length === 0) return false;
    recordChange(agent, sessionId, "compaction", [id]);
    return true;
  });
}
