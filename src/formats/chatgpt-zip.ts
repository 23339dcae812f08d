import { streamChatGpt } from "./chatgpt.js";
import { invalidImport } from "./import-error.js";
import { textChunks } from "./json-stream.js";
import type { TreeOptions } from "./tree.js";
import type { ParsedConversation } from "./types.js";
import {
  bytesSource,
  zipEntries,
  zipEntryStream,
  type ByteSource,
} from "./zip.js";

/** The export's conversations file: `conversations.json` at the top or in one folder. */
const CONVERSATIONS = /(^|\/)conversations\.json$/;

/**
 * The conversations of a ChatGPT data export as downloaded (the `.zip` holding
 * `conversations.json`), one at a time: the archive's directory is read, then
 * `conversations.json` is inflated and parsed as a stream, so memory stays bounded by the
 * largest conversation. The images and other files of the archive are not read.
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
  yield* streamChatGpt(
    textChunks(await zipEntryStream(source, entry)),
    options,
  );
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
