import type { SessionMessage, SessionMessagePart } from "../contracts/types.js";
import { decodeBase64, encodeBase64 } from "../encoding/base64.js";
import {
  assertValidMessage,
  decodeMessage,
  stringifyMessage,
} from "./message-codec.js";
import { sha256Hex } from "../encoding/sha256.js";
import { utf8Length } from "../encoding/utf8.js";

/**
 * Attachments (docs/behavior/storage.md#attachments): file parts whose `url` carries their data
 * inline (`data:` URLs) are stored once per store, by the SHA-256 of their bytes, and the stored
 * message keeps a reference URL in their place. These functions do the message side, the same
 * on every backend; each backend keeps the bytes, chunks and references in its own tables.
 */

/** How a stored file part names its attachment: this prefix, then 64 hex digits of SHA-256. */
export const ATTACHMENT_URL_PREFIX = "arbor-attachment:sha256:";

/** Largest chunk of attachment bytes in one stored row (under Durable Object SQLite's 2 MB values). */
export const ATTACHMENT_CHUNK_BYTES = 1024 * 1024;

/** One attachment a message carries, ready for a backend to store. */
export interface ExtractedAttachment {
  /** SHA-256 of `bytes`, lowercase hex. */
  hash: string;
  /** The `mediaType` of the first part that carried it ("" when the part had none). */
  mediaType: string;
  bytes: Uint8Array;
  /**
   * What the attachment adds to the message's size on read: the UTF-8 bytes of the JSON of its
   * `data:` URLs minus those of its reference URLs, over every part of the message that carries it.
   */
  extraBytes: number;
}

/** A message in its stored form and the attachments it references. */
export interface ExtractionResult {
  /** The message itself when it has no inline data, else a copy with reference URLs. */
  message: SessionMessage;
  /** One entry per distinct hash; empty when nothing was extracted. */
  attachments: ExtractedAttachment[];
}

/**
 * Moves the inline data of file parts out of a message (before it is encoded to JSON). A part is
 * left as it is when its URL is not a `data:` URL, or when its payload could not be restored byte
 * for byte (base64 that is not canonical, text that is not valid UTF-16).
 */
export function extractAttachments(message: SessionMessage): ExtractionResult {
  if (!hasInlineData(message)) return { message, attachments: [] };
  const byHash = new Map<string, ExtractedAttachment>();
  const parts = message.parts.map((part) => {
    const inline = parseInlinePart(part);
    if (!inline) return part;
    const hash = sha256Hex(inline.bytes);
    const reference =
      ATTACHMENT_URL_PREFIX +
      hash +
      (inline.header === defaultHeader(part) ? "" : `#${inline.header}`);
    const extraBytes = jsonLength(part.url as string) - jsonLength(reference);
    const known = byHash.get(hash);
    if (known) known.extraBytes += extraBytes;
    else
      byHash.set(hash, {
        hash,
        mediaType: typeof part.mediaType === "string" ? part.mediaType : "",
        bytes: inline.bytes,
        extraBytes,
      });
    return { ...part, url: reference };
  });
  if (byHash.size === 0) return { message, attachments: [] };
  return { message: { ...message, parts }, attachments: [...byHash.values()] };
}

/** Cheap check on stored JSON text: `false` means it references no attachment (no lookup needed). */
export function mayReferenceAttachments(json: string): boolean {
  return json.includes(ATTACHMENT_URL_PREFIX);
}

/** The distinct attachment hashes the given stored messages reference. */
export function referencedHashes(
  messages: Iterable<SessionMessage | null | undefined>,
): string[] {
  const hashes = new Set<string>();
  for (const message of messages) {
    if (!message) continue;
    for (const part of message.parts) {
      const reference = parseReference(part);
      if (reference) hashes.add(reference.hash);
    }
  }
  return [...hashes];
}

/**
 * A stored message with its reference URLs turned back into the original `data:` URLs. A
 * reference whose bytes `lookup` does not know is left as it is (the attachment is missing).
 * Returns the message itself when nothing was restored.
 */
export function restoreAttachments<
  M extends { parts: readonly SessionMessagePart[] },
>(message: M, lookup: (hash: string) => Uint8Array | null | undefined): M {
  let restored: SessionMessagePart[] | null = null;
  message.parts.forEach((part, index) => {
    const reference = parseReference(part);
    if (!reference) return;
    const bytes = lookup(reference.hash);
    if (!bytes) return;
    const header = reference.header ?? defaultHeader(part);
    const payload = isBase64Header(header)
      ? encodeBase64(bytes)
      : TEXT_DECODER.decode(bytes);
    restored ??= message.parts.slice();
    restored[index] = { ...part, url: `data:${header},${payload}` };
  });
  return restored ? { ...message, parts: restored } : message;
}

/**
 * Restores every message of a read: finds the hashes they reference, asks `load` for their bytes
 * once (skipped entirely when no message references any), and restores. Sync or async like `load`.
 */
export function restoreAll<T extends SessionMessage | null>(
  messages: T[],
  load: (hashes: string[]) => ReadonlyMap<string, Uint8Array>,
): T[];
export function restoreAll<T extends SessionMessage | null>(
  messages: T[],
  load: (hashes: string[]) => Promise<ReadonlyMap<string, Uint8Array>>,
): Promise<T[]>;
export function restoreAll<T extends SessionMessage | null>(
  messages: T[],
  load: (
    hashes: string[],
  ) =>
    ReadonlyMap<string, Uint8Array> | Promise<ReadonlyMap<string, Uint8Array>>,
): T[] | Promise<T[]> {
  const hashes = referencedHashes(messages);
  if (hashes.length === 0) return messages;
  const apply = (found: ReadonlyMap<string, Uint8Array>): T[] =>
    messages.map((message) =>
      message
        ? (restoreAttachments(message, (hash) => found.get(hash)) as T)
        : message,
    );
  const found = load(hashes);
  return found instanceof Promise ? found.then(apply) : apply(found);
}

/** `bytes` cut into views of at most `ATTACHMENT_CHUNK_BYTES` (one empty chunk for no bytes). */
export function chunkBytes(bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += ATTACHMENT_CHUNK_BYTES)
    chunks.push(bytes.subarray(start, start + ATTACHMENT_CHUNK_BYTES));
  return chunks.length > 0 ? chunks : [new Uint8Array(0)];
}

/** Chunks read back in order, joined. Accepts what drivers return for a BLOB/bytea. */
export function joinChunks(chunks: readonly unknown[]): Uint8Array {
  const views = chunks.map(asBytes);
  let length = 0;
  for (const view of views) length += view.length;
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const view of views) {
    bytes.set(view, offset);
    offset += view.length;
  }
  return bytes;
}

/** A driver's BLOB value (Buffer, Uint8Array, ArrayBuffer) as a `Uint8Array`. */
export function asBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value))
    return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return new Uint8Array(0);
}

// --- Internal helpers ---

const TEXT_ENCODER = new TextEncoder();
const TEXT_DECODER = new TextDecoder();
const HASH_PATTERN = /^[0-9a-f]{64}$/;

function hasInlineData(message: SessionMessage): boolean {
  for (const part of message.parts) {
    if (
      part.type === "file" &&
      typeof part.url === "string" &&
      part.url.startsWith("data:")
    )
      return true;
  }
  return false;
}

/** The header (between `data:` and the comma) and bytes of an inline file part, if restorable. */
function parseInlinePart(
  part: SessionMessagePart,
): { header: string; bytes: Uint8Array } | null {
  if (part.type !== "file" || typeof part.url !== "string") return null;
  const url = part.url;
  if (!url.startsWith("data:")) return null;
  const comma = url.indexOf(",");
  if (comma < 0) return null;
  const header = url.slice(5, comma);
  const payload = url.slice(comma + 1);
  if (isBase64Header(header)) {
    const bytes = decodeBase64(payload);
    return bytes ? { header, bytes } : null;
  }
  // Without ";base64" the payload text itself (as written, UTF-8) is what is stored.
  const bytes = TEXT_ENCODER.encode(payload);
  return TEXT_DECODER.decode(bytes) === payload ? { header, bytes } : null;
}

function parseReference(
  part: SessionMessagePart,
): { hash: string; header: string | undefined } | null {
  if (part.type !== "file" || typeof part.url !== "string") return null;
  const url = part.url;
  if (!url.startsWith(ATTACHMENT_URL_PREFIX)) return null;
  const rest = url.slice(ATTACHMENT_URL_PREFIX.length);
  const hash = rest.slice(0, 64);
  if (!HASH_PATTERN.test(hash)) return null;
  if (rest.length === 64) return { hash, header: undefined };
  return rest[64] === "#" ? { hash, header: rest.slice(65) } : null;
}

/** The header a reference without `#header` stands for: the part's media type, base64. */
function defaultHeader(part: SessionMessagePart): string {
  return `${typeof part.mediaType === "string" ? part.mediaType : ""};base64`;
}

function isBase64Header(header: string): boolean {
  return header.toLowerCase().endsWith(";base64");
}

function jsonLength(text: string): number {
  return utf8Length(JSON.stringify(text));
}

/**
 * A message's stored JSON and the attachments moved out of it; costs nothing extra for a message
 * without inline data. `json`, when the caller already has it, is `JSON.stringify(message)` of a
 * message it validated (`MessageWrite.json`): kept as it is when no attachment is moved out, and
 * the message is neither checked nor encoded again. Without it the message is validated like
 * `encodeMessage` (throws `INVALID_MESSAGE`) and encoded here.
 */
export function encodeForStorage(
  message: SessionMessage,
  json?: string,
): {
  json: string;
  attachments: ExtractedAttachment[];
} {
  // A known JSON comes from a caller that checked the message (the Session): not checked again.
  if (json === undefined) assertValidMessage(message);
  const extracted = extractAttachments(message);
  return {
    json:
      json !== undefined && extracted.message === message
        ? json
        : stringifyMessage(extracted.message),
    attachments: extracted.attachments,
  };
}

/** Decodes a stored row and restores its attachments; the lookup runs only for rows that reference one. */
export function decodeWithAttachments(
  json: string,
  lookup: (hash: string) => Uint8Array | null | undefined,
): SessionMessage | null {
  const message = decodeMessage(json);
  return message && mayReferenceAttachments(json)
    ? restoreAttachments(message, lookup)
    : message;
}

/** The UTF-8 bytes of a message's inline `data:` URLs: what an attachment store keeps out of its row. */
export function inlineDataBytes(message: SessionMessage): number {
  if (!hasInlineData(message)) return 0;
  let bytes = 0;
  for (const part of message.parts) {
    if (
      part.type === "file" &&
      typeof part.url === "string" &&
      part.url.startsWith("data:")
    )
      bytes += utf8Length(part.url);
  }
  return bytes;
}
