import {
  chunkBytes,
  joinChunks,
  type ExtractedAttachment,
} from "../../session/messages/attachments.js";

/**
 * The attachment store of one `MemoryStore` (docs/behavior/storage.md#attachments): bytes by
 * SHA-256, kept in chunks like the SQL backends, and the `(session, message)` references to each.
 * An attachment is deleted with its last reference.
 */
export class MemoryAttachments {
  private readonly entries = new Map<string, MemoryAttachment>();
  /** session id → message id → hash → the bytes the attachment adds to that message on read. */
  private readonly references = new Map<
    string,
    Map<string, Map<string, number>>
  >();

  /** The number of stored attachments (for tests and diagnostics). */
  get size(): number {
    return this.entries.size;
  }

  /** Records that `messageId` references `attachments`, storing bytes not stored yet. */
  add(
    sessionId: string,
    messageId: string,
    attachments: readonly ExtractedAttachment[],
  ): void {
    if (attachments.length === 0) return;
    let bySession = this.references.get(sessionId);
    if (!bySession) {
      bySession = new Map();
      this.references.set(sessionId, bySession);
    }
    const own = new Map<string, number>();
    for (const attachment of attachments) {
      own.set(attachment.hash, attachment.extraBytes);
      const entry = this.entries.get(attachment.hash);
      if (entry) entry.referenceCount++;
      else
        this.entries.set(attachment.hash, {
          mediaType: attachment.mediaType,
          chunks: chunkBytes(attachment.bytes.slice()),
          referenceCount: 1,
        });
    }
    bySession.set(messageId, own);
  }

  /** Drops the references of these messages; attachments left without any are deleted. */
  release(sessionId: string, messageIds: Iterable<string>): void {
    const bySession = this.references.get(sessionId);
    if (!bySession) return;
    for (const messageId of messageIds) {
      const own = bySession.get(messageId);
      if (!own) continue;
      bySession.delete(messageId);
      for (const hash of own.keys()) this.unreference(hash);
    }
    if (bySession.size === 0) this.references.delete(sessionId);
  }

  /** Drops every reference of a session (clear, session delete). */
  releaseSession(sessionId: string): void {
    const bySession = this.references.get(sessionId);
    if (bySession) this.release(sessionId, [...bySession.keys()]);
  }

  /** The hashes these messages reference (`null`: the whole session), one entry per reference. */
  referencedBy(
    sessionId: string,
    messageIds: Iterable<string> | null,
  ): string[] {
    const bySession = this.references.get(sessionId);
    if (!bySession) return [];
    const ids = messageIds === null ? bySession.keys() : messageIds;
    return [...ids].flatMap((id) => [...(bySession.get(id)?.keys() ?? [])]);
  }

  /** How many references an attachment has (0 when it is not stored). */
  referenceCount(hash: string): number {
    return this.entries.get(hash)?.referenceCount ?? 0;
  }

  /** The bytes of an attachment, or `undefined` when it is not stored. */
  get(hash: string): Uint8Array | undefined {
    const entry = this.entries.get(hash);
    return entry ? joinChunks(entry.chunks) : undefined;
  }

  /** What the attachments of a message add to its size on read (0 without any). */
  extraBytes(sessionId: string, messageId: string): number {
    const own = this.references.get(sessionId)?.get(messageId);
    if (!own) return 0;
    let total = 0;
    for (const bytes of own.values()) total += bytes;
    return total;
  }

  // --- Internal helpers ---

  private unreference(hash: string): void {
    const entry = this.entries.get(hash);
    if (!entry) return;
    entry.referenceCount--;
    if (entry.referenceCount <= 0) this.entries.delete(hash);
  }
}

interface MemoryAttachment {
  mediaType: string;
  chunks: Uint8Array[];
  referenceCount: number;
}
