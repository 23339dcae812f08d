import type { SessionMessage } from "../../session/contracts/types.js";
import {
  chunkBytes,
  joinChunks,
  restoreAll,
  type ExtractedAttachment,
} from "../../session/messages/attachments.js";
import { decodeBase64, encodeBase64 } from "../../session/encoding/base64.js";
import type { PostgresQueryable } from "./postgres-client.js";
import { TEXT_ARRAY_SQL } from "./postgres-sql.js";

/**
 * SQL that makes a message reference exactly the attachments of one JSON parameter (what
 * `attachmentParam()` returns), storing bytes not stored yet; three `?`: session id, message id,
 * the parameter. Called inside the write's own statement, so message and references commit
 * together (docs/behavior/storage.md#attachments).
 */
export const ATTACH_SQL = "arbor_attach(?, ?, ?::text::json)";

/** The parameter of `ATTACH_SQL` for a message's attachments: `attachmentRows()` as JSON text. */
export function attachmentParam(
  attachments: readonly ExtractedAttachment[],
): string {
  return JSON.stringify(attachmentRows(attachments));
}

/** A message's attachments as `arbor_attach()` reads them, chunks as base64 text. */
export function attachmentRows(
  attachments: readonly ExtractedAttachment[],
): object[] {
  return attachments.map((attachment) => ({
    hash: attachment.hash,
    media_type: attachment.mediaType,
    byte_length: attachment.bytes.length,
    extra_bytes: attachment.extraBytes,
    chunks: chunkBytes(attachment.bytes).map(encodeBase64),
  }));
}

/** The messages of a read with their attachments restored; no query unless one references any. */
export function restoreMessages<T extends SessionMessage | null>(
  db: PostgresQueryable,
  messages: T[],
): Promise<T[]> {
  return Promise.resolve(
    restoreAll(messages, (hashes) => loadAttachments(db, hashes)),
  );
}

/** `restoreMessages` for one message. */
export async function restoreMessage(
  db: PostgresQueryable,
  message: SessionMessage | null,
): Promise<SessionMessage | null> {
  return (await restoreMessages(db, [message]))[0] ?? null;
}

/** The bytes of the stored attachments among `hashes` (read as base64 text: every driver binds it alike). */
export async function loadAttachments(
  db: PostgresQueryable,
  hashes: readonly string[],
): Promise<Map<string, Uint8Array>> {
  const chunks = new Map<string, Uint8Array[]>();
  for (const row of await db.query<{ hash: string; data: string }>(
    `SELECT hash, translate(encode(data, 'base64'), chr(10), '') AS data
    FROM arbor_attachment_chunks WHERE hash = ANY(${TEXT_ARRAY_SQL})
    ORDER BY hash, chunk_index`,
    [JSON.stringify(hashes)],
  )) {
    const bytes = decodeBase64(row.data) ?? new Uint8Array(0);
    const list = chunks.get(row.hash);
    if (list) list.push(bytes);
    else chunks.set(row.hash, [bytes]);
  }
  const found = new Map<string, Uint8Array>();
  for (const [hash, list] of chunks) found.set(hash, joinChunks(list));
  return found;
}

/** SQL for what a message row's attachments add to its size on read; `m` is the message row. */
export const ATTACHMENT_BYTES_SQL = `COALESCE((SELECT sum(r.extra_bytes) FROM arbor_attachment_refs AS r
  WHERE r.session_id = m.session_id AND r.message_id = m.id), 0)`;
