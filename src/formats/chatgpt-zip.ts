import type { SessionMessagePart } from "../session/contracts/types.js";
import { encodeBase64 } from "../session/encoding/base64.js";
import { imagesOf, streamChatGpt } from "./chatgpt.js";
import { invalidImport } from "./import-error.js";
import { textChunks } from "./json-stream.js";
import { IMAGE_PLACEHOLDER } from "./parts.js";
import type { TreeOptions } from "./tree.js";
import type { ParsedConversation } from "./types.js";
import {
  bytesSource,
  zipEntries,
  zipEntryStream,
  type ByteSource,
  type ZipEntry,
} from "./zip.js";

/** The export's conversations file: `conversations.json` at the top or in one folder. */
const CONVERSATIONS = /(^|\/)conversations\.json$/;

/**
 * The id an export names an image file after, at the start of its name: `file-<id>-<name>.png`
 * for a `file-service://file-<id>` pointer, `file_<hex>-<uuid>.png` for `sediment://file_<hex>`.
 */
const ASSET_ID = /^(file[-_][A-Za-z0-9]+)(?=[-.]|$)/;

/** The image types an export holds, by file extension. */
const IMAGE_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
};

/**
 * The conversations of a ChatGPT data export as downloaded (the `.zip` holding
 * `conversations.json`), one at a time: the archive's directory is read, then
 * `conversations.json` is inflated and parsed as a stream, so memory stays bounded by the
 * largest conversation. An image a message shows (`metadata.images`) whose file the archive
 * holds becomes a file part of that message, in place of its `[image]`, which the store keeps
 * as an attachment; the archive's other files are not read.
 */
export async function* streamChatGptZip(
  source: ByteSource,
  options: TreeOptions = {},
): AsyncGenerator<ParsedConversation> {
  const entries = await zipEntries(source);
  const entry = entries
    .filter((candidate) => CONVERSATIONS.test(candidate.name))
    .sort((a, b) => a.name.length - b.name.length)[0];
  if (!entry)
    throw invalidImport(
      null,
      `the zip holds no conversations.json (it has ${entries.length} file(s)${
        entries.length > 0
          ? `: ${entries
              .slice(0, 5)
              .map((item) => item.name)
              .join(", ")}${entries.length > 5 ? ", …" : ""}`
          : ""
      })`,
    );
  const images = imageFiles(entries);
  for await (const conversation of streamChatGpt(
    textChunks(await zipEntryStream(source, entry)),
    options,
  )) {
    if (images.size > 0) await attachImages(conversation, source, images);
    yield conversation;
  }
}

/** Every conversation of a ChatGPT export zip in memory (the import route's body). */
export async function parseChatGptZip(
  bytes: Uint8Array,
  options: TreeOptions & { fileName?: string } = {},
): Promise<ParsedConversation[]> {
  const conversations: ParsedConversation[] = [];
  for await (const conversation of streamChatGptZip(
    bytesSource(bytes),
    options,
  )) {
    if (options.fileName && conversation.source)
      conversation.source.fileName = options.fileName;
    conversations.push(conversation);
  }
  return conversations;
}

// --- Internal helpers ---

/** The archive's image files by the asset id they are named after (the first one of an id). */
function imageFiles(entries: readonly ZipEntry[]): Map<string, ZipEntry> {
  const files = new Map<string, ZipEntry>();
  for (const entry of entries) {
    const name = baseName(entry.name);
    const id = ASSET_ID.exec(name)?.[1];
    if (id !== undefined && mediaTypeOf(name) !== null && !files.has(id))
      files.set(id, entry);
  }
  return files;
}

/**
 * Puts the images of a conversation's messages found in the archive into the messages: a file
 * part with the image's data (first in the message, as ChatGPT shows them above the text) for
 * each, one `[image]` line of the text less, and no report that it was left out.
 */
async function attachImages(
  conversation: ParsedConversation,
  source: ByteSource,
  files: ReadonlyMap<string, ZipEntry>,
): Promise<void> {
  for (const { message } of conversation.snapshot.messages) {
    const found: SessionMessagePart[] = [];
    for (const image of imagesOf(message)) {
      const entry = files.get(image.assetPointer.replace(/^[a-z-]+:\/\//, ""));
      if (!entry) continue;
      const name = baseName(entry.name);
      const mediaType = mediaTypeOf(name)!;
      const bytes = await entryBytes(source, entry);
      found.push({
        type: "file",
        mediaType,
        filename: name,
        url: `data:${mediaType};base64,${encodeBase64(bytes)}`,
      });
      image.fileName = entry.name;
      conversation.skipped = conversation.skipped?.filter(
        (item) =>
          !(
            item.what === "image" &&
            item.reason.includes(`(${image.assetPointer})`)
          ),
      );
    }
    if (found.length > 0)
      message.parts = [...found, ...withoutPlaceholders(message.parts, found)];
  }
}

/** The parts with one `[image]` line of their text taken out per image found. */
function withoutPlaceholders(
  parts: readonly SessionMessagePart[],
  found: readonly SessionMessagePart[],
): SessionMessagePart[] {
  let left = found.length;
  return parts.flatMap((part) => {
    if (part.type !== "text" || typeof part.text !== "string" || left === 0)
      return [part];
    const lines = part.text.split("\n").filter((line) => {
      if (left > 0 && line === IMAGE_PLACEHOLDER) {
        left--;
        return false;
      }
      return true;
    });
    const text = lines.join("\n");
    return text.trim() === "" ? [] : [{ ...part, text }];
  });
}

async function entryBytes(
  source: ByteSource,
  entry: ZipEntry,
): Promise<Uint8Array> {
  const reader = (await zipEntryStream(source, entry)).getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.length;
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function mediaTypeOf(name: string): string | null {
  const extension = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  return extension !== undefined ? (IMAGE_TYPES[extension] ?? null) : null;
}
