import { deleteWithTreeRepair } from "../../session/tree/tree-repair-driver.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { readCompactionsTouching } from "./sql-compactions.js";
import { loadAncestorLinks } from "./sql-path.js";
import { markDeletedStale } from "./sql-search.js";

/**
 * Deletes messages of one session with the tree and overlay repair of docs/behavior/messages-and-tree.md
 * (`deleteWithTreeRepair`); this is SQLite's SQL for it. Index rows are marked stale by `seq`
 * (the next search removes them). Synchronous: must run inside the caller's transaction.
 * Returns the number of rows deleted.
 */
export function deleteWithRepair(
  agent: SqlProvider,
  sessionId: string,
  ids: readonly string[],
): number {
  return deleteWithTreeRepair<
    { seq: number; id: string; parent_id: string | null },
    number
  >(
    {
      none: 0,
      readTargets: (wanted) => agent.sql<{
        seq: number;
        id: string;
        parent_id: string | null;
      }>`
        SELECT seq, id, parent_id FROM assistant_messages
        WHERE session_id = ${sessionId} AND id IN (SELECT value FROM json_each(${JSON.stringify(wanted)}))`,
      // `+seq`: ordering by the bare column made SQLite walk the session's (session_id, seq)
      // index, a scan of the whole session per delete; sorting the few children is cheaper.
      readChildren: (parentIds) => agent.sql<{ id: string; parent_id: string }>`
        SELECT id, parent_id FROM assistant_messages
        WHERE session_id = ${sessionId} AND parent_id IN (SELECT value FROM json_each(${JSON.stringify(parentIds)}))
        ORDER BY +seq`,
      readOverlaysTouching: (deletedIds) =>
        readCompactionsTouching(agent, sessionId, JSON.stringify(deletedIds)),
      readRange: (toId, fromId) =>
        loadAncestorLinks(agent, sessionId, toId, fromId),
      apply: (plan, targets, deletedIds) => {
        for (const { id, parentId } of plan.reparent) {
          agent.sql`UPDATE assistant_messages SET parent_id = ${parentId}
            WHERE session_id = ${sessionId} AND id = ${id}`;
        }
        for (const { id, fromMessageId, toMessageId } of plan.moveOverlays) {
          agent.sql`UPDATE assistant_compactions SET from_message_id = ${fromMessageId}, to_message_id = ${toMessageId}
            WHERE session_id = ${sessionId} AND id = ${id}`;
        }
        for (const id of plan.deleteOverlays) {
          agent.sql`DELETE FROM assistant_compactions WHERE session_id = ${sessionId} AND id = ${id}`;
        }
        // Their index rows go at the next search (catchUpIndex): no FTS5 write here.
        markDeletedStale(agent, JSON.stringify(targets.map((row) => row.seq)));
        agent.sql`DELETE FROM assistant_messages
          WHERE session_id = ${sessionId} AND id IN (SELECT value FROM json_each(${JSON.stringify(deletedIds)}))`;
        return targets.length;
      },
    },
    ids,
  );
}
