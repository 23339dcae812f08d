import type { StoredMessageRecord } from "../../session/contracts/provider.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import { decodeMessage } from "../../session/messages/message-codec.js";
import { historyFromPath } from "../../session/tree/path-history.js";
import { decodeAll } from "../../session/messages/stored-rows.js";
import { restoreMessage, restoreMessages } from "./postgres-attachments.js";
import type { PostgresQueryable } from "./postgres-client.js";
import { loadPathAndOverlays, type PathBounds } from "./postgres-path.js";
import { isoSql, LATEST_LEAF_SQL } from "./postgres-sql.js";

/*
 * The message reads of a session that return whole messages: decoded, attachments restored.
 * Reads that plan on stored sizes without content are in postgres-windows.ts.
 */

/** The stored message with this id, or `null` when absent or unreadable. */
export async function loadMessage(
  db: PostgresQueryable,
  sessionId: string,
  id: string,
): Promise<SessionMessage | null> {
  const [row] = await db.query<{ content: string }>(
    "SELECT content FROM assistant_messages WHERE session_id = ? AND id = ?",
    [sessionId, id],
  );
  return restoreMessage(db, row ? decodeMessage(row.content) : null);
}

/** The most recently inserted leaf of the session, or `null` when it is empty. */
export async function loadLatestLeaf(
  db: PostgresQueryable,
  sessionId: string,
): Promise<SessionMessage | null> {
  const [row] = await db.query<{ content: string }>(
    `SELECT content FROM assistant_messages WHERE session_id = ? AND id = (${LATEST_LEAF_SQL})`,
    [sessionId, sessionId],
  );
  return restoreMessage(db, row ? decodeMessage(row.content) : null);
}

/** The children of `messageId` in insertion order (unparseable rows skipped). */
export async function loadBranches(
  db: PostgresQueryable,
  sessionId: string,
  messageId: string,
): Promise<SessionMessage[]> {
  const rows = await db.query<{ content: string }>(
    `SELECT content FROM assistant_messages
    WHERE session_id = ? AND parent_id = ? ORDER BY seq`,
    [sessionId, messageId],
  );
  return restoreMessages(db, decodeAll(rows.map((row) => row.content)));
}

/**
 * The path to `leafId` (latest leaf when `null`), root first, with the session's compaction
 * overlays applied (docs/behavior/overlays.md), and the id of the leaf it ends at (`null` when
 * there is no path): one statement.
 */
export async function loadHistory(
  db: PostgresQueryable,
  sessionId: string,
  leafId: string | null,
): Promise<{ messages: SessionMessage[]; leafId: string | null }> {
  return (await loadHistoryWithin(db, sessionId, leafId, undefined))!;
}

/** `loadHistory`, or `null` (and no content read) when the path is larger than `within`. */
export async function loadHistoryWithin(
  db: PostgresQueryable,
  sessionId: string,
  leafId: string | null,
  within: PathBounds | undefined,
): Promise<{ messages: SessionMessage[]; leafId: string | null } | null> {
  const { rows, overlays, fits } = await loadPathAndOverlays(
    db,
    sessionId,
    leafId,
    within,
  );
  if (!fits) return null;
  const messages = await restoreMessages(
    db,
    historyFromPath(
      rows.map((row) => row.id),
      (index) => decodeMessage(rows[index]!.content),
      overlays,
    ),
  );
  return { messages, leafId: rows.at(-1)?.id ?? null };
}

/** Every message of the session, all branches, in insertion order (unparseable rows skipped). */
export async function exportSessionMessages(
  db: PostgresQueryable,
  sessionId: string,
): Promise<StoredMessageRecord[]> {
  const records: StoredMessageRecord[] = [];
  for (const row of await db.query<{
    parent_id: string | null;
    content: string;
    created_at: string;
  }>(
    `SELECT parent_id, content, ${isoSql("created_at")} AS created_at
    FROM assistant_messages WHERE session_id = ? ORDER BY seq`,
    [sessionId],
  )) {
    const message = await restoreMessage(db, decodeMessage(row.content));
    if (message)
      records.push({
        message,
        parentId: row.parent_id,
        createdAt: row.created_at,
      });
  }
  return records;
}
