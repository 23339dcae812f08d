import { planTreeRepair } from "../../session/core/tree-repair.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { readCompactionsTouching } from "./sql-compactions.js";
import { loadAncestorLinks } from "./sql-path.js";
import { markDeletedStale } from "./sql-search.js";

/**
 * Deletes messages of one session with the tree and overlay repair of docs/behavior/messages-and-tree.md: surviving children
 * move to the nearest surviving ancestor, overlays shrink to their surviving range or go, and index
 * rows are marked stale by `seq` (the next search removes them). Reads only the deleted rows,
 * their children and the ranges of the overlays they touch. Must run inside the caller's
 * transaction. Returns the number of rows deleted.
 */
export function deleteWithRepair(
  agent: SqlProvider,
  sessionId: string,
  ids: readonly string[],
): number {
  const idsJson = JSON.stringify(
    [...new Set(ids)].filter((id) => typeof id === "string"),
  );
  const doomed = agent.sql<{
    seq: number;
    id: string;
    parent_id: string | null;
  }>`
    SELECT seq, id, parent_id FROM assistant_messages
    WHERE session_id = ${sessionId} AND id IN (SELECT value FROM json_each(${idsJson}))`;
  if (doomed.length === 0) return 0;

  const deleted = new Set<string>();
  const parents = new Map<string, string | null>();
  for (const row of doomed) {
    deleted.add(row.id);
    parents.set(row.id, row.parent_id);
  }
  const deletedJson = JSON.stringify([...deleted]);
  const children = new Map<string, string[]>();
  // `+seq`: ordering by the bare column made SQLite walk the session's (session_id, seq) index,
  // a scan of the whole session per delete; sorting the few children is cheaper.
  for (const row of agent.sql<{ id: string; parent_id: string }>`
    SELECT id, parent_id FROM assistant_messages
    WHERE session_id = ${sessionId} AND parent_id IN (SELECT value FROM json_each(${deletedJson}))
    ORDER BY +seq`) {
    const list = children.get(row.parent_id) ?? [];
    list.push(row.id);
    children.set(row.parent_id, list);
  }
  const overlays = readCompactionsTouching(agent, sessionId, deletedJson);
  for (const overlay of overlays) {
    for (const link of loadAncestorLinks(
      agent,
      sessionId,
      overlay.toMessageId,
      overlay.fromMessageId,
    )) {
      parents.set(link.id, link.parent_id);
    }
  }

  const plan = planTreeRepair({
    deleted,
    parentOf: (id) => parents.get(id),
    childrenOf: (id) => children.get(id) ?? [],
    overlays,
  });
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
  markDeletedStale(agent, JSON.stringify(doomed.map((row) => row.seq)));
  agent.sql`DELETE FROM assistant_messages
    WHERE session_id = ${sessionId} AND id IN (SELECT value FROM json_each(${deletedJson}))`;
  return doomed.length;
}
