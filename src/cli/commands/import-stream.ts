/**
 * `arbor import` of ChatGPT exports with bounded memory: the JSON file, or the export's zip as
 * downloaded, is read as a stream, one conversation at a time, twice: first to check every
 * conversation (a bad file writes nothing), then to write them. Memory is bounded by the largest
 * conversation, so a 200 MB export imports like a small one.
 */
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import type { ImportReport } from "../../formats/import.js";
import type { ImportConversationsOptions } from "../../formats/import.js";
import type {
  ImportWarning,
  ParsedConversation,
  SkippedContent,
} from "../../formats/types.js";
import type { ByteSource } from "../../formats/zip.js";
import type { SessionManager } from "../../session/index.js";

/** How many report items are kept for printing (the rest are counted). */
const KEPT_ITEMS = 20;

/** The kinds of file this module streams. */
export type StreamedKind = "zip" | "chatgpt";

/**
 * Whether the file is streamed: a zip (by its first bytes), or a ChatGPT JSON export (an array
 * or object whose first 64 KiB hold a `"mapping"`) when the format is detected or `chatgpt`.
 */
export async function streamedKind(
  file: string,
  format: string,
): Promise<StreamedKind | null> {
  if (format !== "auto" && format !== "chatgpt") return null;
  const handle = await open(file, "r");
  try {
    const head = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const start = head.subarray(0, bytesRead);
    const { isZip } = await import("../../formats/zip.js");
    if (isZip(start)) return "zip";
    const text = start
      .toString("utf8")
      .replace(/^\uFEFF/, "")
      .trimStart();
    if (format === "chatgpt" && /^[[{]/.test(text)) return "chatgpt";
    return /^\[\s*\{/.test(text) && text.includes('"mapping"')
      ? "chatgpt"
      : null;
  } finally {
    await handle.close();
  }
}

/** What the check of a streamed file found: counts, and the first items of its report. */
export interface StreamedCheck {
  conversations: number;
  messages: number;
  skippedContent: { items: SkippedContent[]; count: number };
  warnings: { items: ImportWarning[]; count: number };
}

/** Reads and checks every conversation of the file, keeping only counts (throws when bad). */
export async function checkStreamed(
  file: string,
  kind: StreamedKind,
  options: { lenient: boolean; fileName: string },
): Promise<StreamedCheck> {
  const check: StreamedCheck = {
    conversations: 0,
    messages: 0,
    skippedContent: { items: [], count: 0 },
    warnings: { items: [], count: 0 },
  };
  for await (const conversation of read(file, kind, options)) {
    check.conversations++;
    check.messages += conversation.snapshot.messages.length;
    keep(check.skippedContent, conversation.skipped ?? []);
    keep(check.warnings, conversation.warnings ?? []);
  }
  return check;
}

/** Writes a checked file conversation by conversation; deletes what it created on failure. */
export async function importStreamed(
  manager: SessionManager,
  file: string,
  kind: StreamedKind,
  check: StreamedCheck,
  options: ImportConversationsOptions & {
    lenient: boolean;
    fileName: string;
    name?: string;
  },
): Promise<ImportReport> {
  const { importConversationsWithReport } =
    await import("../../formats/import.js");
  const conversations = check.conversations;
  const total = check.messages;
  // Pass 2: written one conversation at a time.
  const report: ImportReport = {
    sessions: [],
    created: [],
    updated: [],
    skipped: [],
    messagesWritten: 0,
  };
  let done = 0;
  options.onProgress?.(0, total);
  try {
    for await (const conversation of read(file, kind, options)) {
      if (options.name !== undefined)
        conversation.title =
          conversations === 1
            ? options.name
            : `${options.name}: ${conversation.title}`;
      const one = await importConversationsWithReport(manager, [conversation], {
        ...options,
        onProgress: undefined,
      });
      report.sessions.push(...one.sessions);
      report.created.push(...one.created);
      report.updated.push(...one.updated);
      report.skipped.push(...one.skipped);
      report.messagesWritten += one.messagesWritten;
      done += conversation.snapshot.messages.length;
      options.onProgress?.(done, total);
    }
  } catch (error) {
    for (const info of report.created)
      await manager.delete(info.id).catch(() => false);
    throw error;
  }
  return report;
}

// --- Internal helpers ---

async function* read(
  file: string,
  kind: StreamedKind,
  options: { lenient: boolean; fileName: string },
): AsyncGenerator<ParsedConversation> {
  const tree = { lenient: options.lenient };
  const named = (conversation: ParsedConversation) => {
    if (conversation.source) conversation.source.fileName = options.fileName;
    return conversation;
  };
  if (kind === "chatgpt") {
    const { streamChatGpt } = await import("../../formats/chatgpt.js");
    const chunks = createReadStream(file, {
      encoding: "utf8",
      highWaterMark: 1024 * 1024,
    });
    for await (const conversation of streamChatGpt(
      chunks as AsyncIterable<string>,
      tree,
    ))
      yield named(conversation);
    return;
  }
  const { streamChatGptZip } = await import("../../formats/chatgpt-zip.js");
  const handle = await open(file, "r");
  try {
    const { size } = await handle.stat();
    const source: ByteSource = {
      size,
      read: async (offset, length) => {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, offset);
        return buffer.subarray(0, bytesRead);
      },
    };
    for await (const conversation of streamChatGptZip(source, tree))
      yield named(conversation);
  } finally {
    await handle.close();
  }
}

function keep<T>(into: { items: T[]; count: number }, items: readonly T[]) {
  into.count += items.length;
  for (const item of items)
    if (into.items.length < KEPT_ITEMS) into.items.push(item);
}
