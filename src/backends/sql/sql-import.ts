import { encodeForStorage } from "../../session/messages/attachments.js";
import { ArborError } from "../../session/errors/index.js";
import type { ImportRecords } from "../../session/contracts/provider.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { insertContinuations, splitContent } from "./sql-message-chunks.js";
import { storeAttachments } from "./sql-attachments.js";
import { recordChange, withoutAppendNotices } from "./sql-changes.js";
import { atomically } from "./sql-transaction.js";
import { clearSessionRows } from "./sql-writes.js";

/**
 * Inserts exported records as they were (snapshot import, fork, a conversation's merge), in one
 * transaction that first clears the session when `records.replace` is set, moves the stored roots
 * of `records.reattach` under the messages it inserted, and records the import as one change, so
 * a failed import leaves the session as it was.
 */
export function importRecords(
  agent: SqlProvider,
  sessionId: string,
  records: ImportRecords,
): void {
  atomically(agent, () => {
    if (records.replace) clearSessionRows(agent, sessionId);
    withoutAppendNotices(agent, () => insertRecords(agent, sessionId, records));
    const ids = records.messages.map(({ message }) => message.id);
    const moved = reattachRoots(agent, sessionId, records, new Set(ids));
    recordChange(agent, sessionId, "import", [...ids, ...moved]);
  });
}

/**
 * Inserts exported records as they were: ids, parents, insertion order and times (docs/behavior/manager.md).
 * Runs inside the caller's transaction; throws `MESSAGE_EXISTS` before writing anything when an
 * id is taken in this session. Overlay ids are kept unless another session already uses them.
 */
function insertRecords(
  agent: SqlProvider,
  sessionId: string,
  records: ImportRecords,
): void {
  for (const { message } of records.messages) {
    const [taken] = agent.sql<{ found: number }>`
      SELECT 1 AS found FROM assistant_messages WHERE session_id = ${sessionId} AND id = ${message.id}`;
    if (taken) {
      throw new ArborError(
        "MESSAGE_EXISTS",
        `[arbor] Message "${message.id}" already exists in session "${sessionId}"; import with replace to overwrite`,
      );
    }
  }
  for (const { message, parentId, createdAt } of records.messages) {
    // The search index picks the rows up at the next search (catchUpIndex).
    const { json, attachments } = encodeForStorage(message);
    const split = splitContent(json);
    const [row] = agent.sql<{ seq: number }>`
      INSERT INTO assistant_messages (id, session_id, parent_id, role, content, chunked_bytes, created_at)
      VALUES (${message.id}, ${sessionId}, ${parentId}, ${message.role}, ${split.head}, ${split.chunkedBytes}, ${createdAt})
      RETURNING seq`;
    if (row) insertContinuations(agent, row.seq, split.continuations);
    storeAttachments(agent, sessionId, message.id, attachments);
  }
  for (const overlay of records.compactions) {
    const [taken] = agent.sql<{ found: number }>`
      SELECT 1 AS found FROM assistant_compactions WHERE id = ${overlay.id}`;
    const id = taken ? crypto.randomUUID() : overlay.id;
    agent.sql`INSERT INTO assistant_compactions
        (id, session_id, summary, from_message_id, to_message_id, created_at, meta)
      VALUES (${id}, ${sessionId}, ${overlay.summary}, ${overlay.fromMessageId}, ${overlay.toMessageId},
        ${overlay.createdAt}, ${overlay.meta ? JSON.stringify(overlay.meta) : null})`;
  }
}

/**
 * `records.reattach`, inside the caller's transaction: each row that is still a root of the
 * session goes under a message this import inserted; the rest are left. Returns the ids moved.
 */
function reattachRoots(
  agent: SqlProvider,
  sessionId: string,
  records: ImportRecords,
  inserted: ReadonlySet<string>,
): string[] {
  const moved: string[] = [];
  for (const { id, parentId } of records.reattach ?? []) {
    if (!inserted.has(parentId)) continue;
    const [row] = agent.sql<{ id: string }>`
      UPDATE assistant_messages SET parent_id = ${parentId}
      WHERE session_id = ${sessionId} AND id = ${id} AND parent_id IS NULL
      RETURNING id`;
    if (row) moved.push(id);
  }
  return moved;
}
