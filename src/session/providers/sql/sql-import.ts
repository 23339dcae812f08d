import { encodeMessage } from "../../core/message-codec.js";
import { ArborError } from "../../errors/index.js";
import type { ImportRecords } from "../../contracts/provider.js";
import type { SqlProvider } from "../../contracts/sql-provider.js";

/**
 * Inserts exported records as they were: ids, parents, insertion order and times (docs/behavior/manager.md).
 * Runs inside the caller's transaction; throws `MESSAGE_EXISTS` before writing anything when an
 * id is taken in this session. Overlay ids are kept unless another session already uses them.
 */
export function importRecords(
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
    agent.sql`INSERT INTO assistant_messages (id, session_id, parent_id, role, content, created_at)
      VALUES (${message.id}, ${sessionId}, ${parentId}, ${message.role}, ${encodeMessage(message)}, ${createdAt})`;
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
