import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import {
  chunkBytes,
  joinChunks,
  restoreAll,
  type ExtractedAttachment,
} from "../../session/messages/attachments.js";

/**
 * The attachment tables of the SQL-tag store (docs/behavior/storage.md#attachments): bytes once
 * per hash in chunks of at most 1 MiB, and one reference row per `(session, message, hash)`. An
 * attachment row goes with its last reference, in the transaction that drops the reference.
 */
export function createAttachmentTables(agent: SqlProvider): void {
  agent.sql`CREATE TABLE IF NOT EXISTS arbor_attachments (
    hash TEXT PRIMARY KEY,
    media_type TEXT NOT NULL,
    byte_length INTEGER NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  )`;
  agent.sql`CREATE TABLE IF NOT EXISTS arbor_attachment_chunks (
    hash TEXT NOT NULL,
    chunk_index INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (hash, chunk_index)
  )`;
  agent.sql`CREATE TABLE IF NOT EXISTS arbor_attachment_refs (
    session_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    hash TEXT NOT NULL,
    extra_bytes INTEGER NOT NULL,
    PRIMARY KEY (session_id, message_id, hash)
  )`;
  agent.sql`CREATE INDEX IF NOT EXISTS idx_arbor_attachment_refs_hash
    ON arbor_attachment_refs (hash)`;
}

/** Records the references of a message just written, storing bytes not stored yet. Inside the write's transaction. */
export function storeAttachments(
  agent: SqlProvider,
  sessionId: string,
  messageId: string,
  attachments: readonly ExtractedAttachment[],
): void {
  for (const attachment of attachments) {
    const [created] = agent.sql<{ hash: string }>`
      INSERT INTO arbor_attachments (hash, media_type, byte_length)
      VALUES (${attachment.hash}, ${attachment.mediaType}, ${attachment.bytes.length})
      ON CONFLICT (hash) DO NOTHING
      RETURNING hash`;
    if (created) {
      chunkBytes(attachment.bytes).forEach((chunk, index) => {
        agent.sql`INSERT INTO arbor_attachment_chunks (hash, chunk_index, data)
          VALUES (${attachment.hash}, ${index}, ${chunk})`;
      });
    }
    agent.sql`INSERT INTO arbor_attachment_refs (session_id, message_id, hash, extra_bytes)
      VALUES (${sessionId}, ${messageId}, ${attachment.hash}, ${attachment.extraBytes})
      ON CONFLICT (session_id, message_id, hash) DO UPDATE SET extra_bytes = excluded.extra_bytes`;
  }
}

/** After an update: the message references exactly `attachments`; ones it dropped are released. */
export function replaceAttachments(
  agent: SqlProvider,
  sessionId: string,
  messageId: string,
  attachments: readonly ExtractedAttachment[],
): void {
  releaseAttachments(agent, sessionId, [messageId]);
  storeAttachments(agent, sessionId, messageId, attachments);
}

/**
 * Drops the references of these messages (`null`: of the whole session) and deletes the
 * attachments left without any. Inside the delete's transaction.
 */
export function releaseAttachments(
  agent: SqlProvider,
  sessionId: string,
  messageIds: readonly string[] | null,
): void {
  const released =
    messageIds === null
      ? agent.sql<{ hash: string }>`
          DELETE FROM arbor_attachment_refs WHERE session_id = ${sessionId} RETURNING hash`
      : agent.sql<{ hash: string }>`
          DELETE FROM arbor_attachment_refs
          WHERE session_id = ${sessionId}
            AND message_id IN (SELECT value FROM json_each(${JSON.stringify(messageIds)}))
          RETURNING hash`;
  if (released.length === 0) return;
  const hashes = JSON.stringify([...new Set(released.map((row) => row.hash))]);
  agent.sql`DELETE FROM arbor_attachment_chunks
    WHERE hash IN (SELECT value FROM json_each(${hashes}))
      AND NOT EXISTS (SELECT 1 FROM arbor_attachment_refs AS r WHERE r.hash = arbor_attachment_chunks.hash)`;
  agent.sql`DELETE FROM arbor_attachments
    WHERE hash IN (SELECT value FROM json_each(${hashes}))
      AND NOT EXISTS (SELECT 1 FROM arbor_attachment_refs AS r WHERE r.hash = arbor_attachments.hash)`;
}

/** The messages of a read with their attachments restored; no query unless one references any. */
export function restoreMessages<T extends SessionMessage | null>(
  agent: SqlProvider,
  messages: T[],
): T[] {
  return restoreAll(messages, (hashes) => loadAttachments(agent, hashes));
}

/** `restoreMessages` for one message. */
export function restoreMessage(
  agent: SqlProvider,
  message: SessionMessage | null,
): SessionMessage | null {
  return restoreMessages(agent, [message])[0] ?? null;
}

/** The bytes of the stored attachments among `hashes`. */
export function loadAttachments(
  agent: SqlProvider,
  hashes: readonly string[],
): Map<string, Uint8Array> {
  const chunks = new Map<string, unknown[]>();
  for (const row of agent.sql<{ hash: string; data: unknown }>`
    SELECT hash, data FROM arbor_attachment_chunks
    WHERE hash IN (SELECT value FROM json_each(${JSON.stringify(hashes)}))
    ORDER BY hash, chunk_index`) {
    const list = chunks.get(row.hash);
    if (list) list.push(row.data);
    else chunks.set(row.hash, [row.data]);
  }
  const found = new Map<string, Uint8Array>();
  for (const [hash, list] of chunks) found.set(hash, joinChunks(list));
  return found;
}

/**
 * Row sizes with what each message's attachments add on read (docs/behavior/history.md): one
 * indexed query over the session's references, which finds nothing in a session without any.
 */
export function withAttachmentBytes<Row extends { id: string; bytes: number }>(
  agent: SqlProvider,
  sessionId: string,
  rows: Row[],
): Row[] {
  if (rows.length === 0) return rows;
  const extra = new Map<string, number>();
  for (const row of agent.sql<{ message_id: string; extra: number }>`
    SELECT message_id, SUM(extra_bytes) AS extra FROM arbor_attachment_refs
    WHERE session_id = ${sessionId} GROUP BY message_id`) {
    extra.set(row.message_id, Number(row.extra));
  }
  if (extra.size === 0) return rows;
  return rows.map((row) => {
    const bytes = extra.get(row.id);
    return bytes === undefined ? row : { ...row, bytes: row.bytes + bytes };
  });
}
