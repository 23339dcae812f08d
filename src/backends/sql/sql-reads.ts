import type { StoredMessageRecord } from "../../session/contracts/provider.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import { decodeMessage } from "../../session/messages/message-codec.js";
import { historyFromPath } from "../../session/tree/path-history.js";
import { decodeAll } from "../../session/messages/stored-rows.js";
import { restoreMessage, restoreMessages } from "./sql-attachments.js";
import { readCompactions } from "./sql-compactions.js";
import {
  readChildContents,
  readMessageContent,
  withWholeContent,
  type StoredContentRow,
} from "./sql-message-chunks.js";
import type { PathMessages } from "./sql-path.js";

/*
 * The message reads of a session that return whole messages: split messages joined, attachments
 * restored. Path reads are in sql-path.ts (behind the provider's path cache); reads that plan on
 * stored sizes without content are in sql-windows.ts.
 */

/** The stored message with this id, or `null` when absent or unreadable. */
export function loadMessage(
  agent: SqlProvider,
  sessionId: string,
  id: string,
): SessionMessage | null {
  const content = readMessageContent(agent, sessionId, id);
  return content === undefined
    ? null
    : restoreMessage(agent, decodeMessage(content));
}

/**
 * The history along `path` (read through the provider's path cache), root first, with the
 * session's compaction overlays applied (docs/behavior/overlays.md). A hot path: no work beyond
 * the overlay pass and the attachment restore.
 */
export function loadHistory(
  agent: SqlProvider,
  sessionId: string,
  path: PathMessages,
): SessionMessage[] {
  if (path.ids.length === 0) return [];
  const { messages } = path;
  const history = historyFromPath(
    path.ids,
    (index) => messages[index],
    readCompactions(agent, sessionId),
  );
  return path.attachmentFree ? history : restoreMessages(agent, history);
}

/** The children of `messageId` in insertion order (unparseable rows skipped). */
export function loadBranches(
  agent: SqlProvider,
  sessionId: string,
  messageId: string,
): SessionMessage[] {
  return restoreMessages(
    agent,
    decodeAll(readChildContents(agent, sessionId, messageId)),
  );
}

/**
 * Every message of the session, all branches, in insertion order, with its stored parent and
 * time: what `importRecords` (sql-import.ts) writes back as it was. Unparseable rows are skipped.
 */
export function exportSessionMessages(
  agent: SqlProvider,
  sessionId: string,
): StoredMessageRecord[] {
  const records: StoredMessageRecord[] = [];
  const rows = agent.sql<
    StoredContentRow & { parent_id: string | null; created_at: string }
  >`SELECT seq, parent_id, content, chunked_bytes, created_at FROM assistant_messages
    WHERE session_id = ${sessionId} ORDER BY seq`;
  for (const row of withWholeContent(agent, rows)) {
    const message = restoreMessage(agent, decodeMessage(row.content));
    if (message)
      records.push({
        message,
        parentId: row.parent_id,
        createdAt: row.created_at,
      });
  }
  return records;
}
