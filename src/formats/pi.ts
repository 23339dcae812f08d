import type {
  SessionMessage,
  SessionMessagePart,
  StoredCompaction,
} from "../session/contracts/types.js";
import { asRecord, invalidImport } from "./import-error.js";
import { isoTime, parseJsonl, type JsonlLine } from "./json-text.js";
import {
  contentText,
  IMAGE_PLACEHOLDER,
  textParts,
  toolCallPart,
  ToolCalls,
} from "./parts.js";
import {
  buildTree,
  conversationTimes,
  firstUserWords,
  type BuiltTree,
  type SourceNode,
  type TreeOptions,
} from "./tree.js";
import type { ParsedConversation } from "./types.js";

/**
 * Reads a Pi coding-agent session (JSONL: a `session` header, then entries linked by
 * `id`/`parentId`, versions 2 and 3; a version 1 file, a linear list, is first migrated as Pi
 * migrates it on load). `user` and `assistant` messages are kept (thinking as reasoning
 * parts, `toolCall` blocks as tool parts); a `toolResult` becomes the output of its call; a
 * `bashExecution` (a command the user ran with `!`) is a user message holding what Pi gives the
 * model for it, its command and exit status in `metadata.bashExecution`. Every other entry is
 * skipped with its children re-attached, except that a `compaction` becomes an overlay over the
 * messages before its `firstKeptEntryId`, and `session_info` names the session. The last entry
 * is the active leaf.
 */
export function parsePi(
  text: string,
  fileName?: string,
  options: TreeOptions = {},
): ParsedConversation {
  const [header, ...read] = parseJsonl(text);
  if (header!.value.type !== "session")
    throw invalidImport(
      `line ${header!.line}`,
      'expected the Pi header {"type":"session",…}',
    );
  const entries = isVersion1(header!.value, read)
    ? migrateVersion1(read)
    : read;
  const start = isoTime(header!.value.timestamp, new Date(0).toISOString());
  const calls = new ToolCalls();
  const nodes: SourceNode[] = [];
  const compactionEntries: Array<{
    entry: Record<string, unknown>;
    where: string;
  }> = [];
  let name: string | null = null;
  for (const { line, value } of entries) {
    const where = `line ${line}`;
    if (typeof value.id !== "string")
      throw invalidImport(where, "an entry needs a string `id`");
    if (value.parentId !== null && typeof value.parentId !== "string")
      throw invalidImport(where, "`parentId` must be an entry id or null");
    const createdAt = isoTime(value.timestamp, start);
    let message: SessionMessage | null = null;
    if (value.type === "message") message = readMessage(value, calls, where);
    else if (value.type === "compaction")
      compactionEntries.push({ entry: value, where });
    else if (value.type === "session_info" && typeof value.name === "string")
      name = value.name;
    nodes.push({
      id: value.id,
      parentId: value.parentId,
      createdAt,
      message,
      where,
    });
  }
  const tree = buildTree(nodes, options);
  const last = nodes.at(-1)?.id ?? null;
  const byId = new Map(nodes.map((node) => [node.id, node]));
  return {
    snapshot: {
      format: "arbor.session",
      version: 1,
      sessionId:
        typeof header!.value.id === "string"
          ? header!.value.id
          : crypto.randomUUID(),
      exportedAt: start,
      messages: tree.messages,
      compactions: compactionEntries.flatMap(({ entry }) =>
        overlayOf(entry, byId, tree),
      ),
    },
    activeLeafId: tree.resolve(last),
    title: name ?? firstUserWords(tree.messages, fileName ?? "Pi session"),
    format: "pi",
    source: {
      format: "pi",
      id: typeof header!.value.id === "string" ? header!.value.id : null,
    },
    times: conversationTimes(tree.messages, { createdAt: start }),
    warnings: tree.warnings,
  };
}

// --- Internal helpers ---

/** Version 1: no `version` in the header (or 1) and entries without ids. */
function isVersion1(
  header: Record<string, unknown>,
  entries: readonly JsonlLine[],
): boolean {
  if (header.version !== undefined && header.version !== 1) return false;
  return entries.every(({ value }) => value.id === undefined);
}

/**
 * Version 1 → 2, as Pi does on load: the entries form one chain in file order, each with an id
 * (`v1-<n>`, `n` its index in the file, the header being 0) and the previous entry as parent;
 * a compaction's `firstKeptEntryIndex` (an index in the file, counted the same way) becomes
 * `firstKeptEntryId`. The ids are fixed, so a file imports to the same ids every time.
 */
function migrateVersion1(entries: readonly JsonlLine[]): JsonlLine[] {
  const idAt = (index: number) => `v1-${index}`;
  return entries.map(({ line, value }, position) => {
    const index = position + 1;
    const migrated: Record<string, unknown> = {
      ...value,
      id: idAt(index),
      parentId: position === 0 ? null : idAt(index - 1),
    };
    if (
      value.type === "compaction" &&
      typeof value.firstKeptEntryIndex === "number" &&
      value.firstKeptEntryIndex >= 1 &&
      value.firstKeptEntryIndex <= entries.length
    )
      migrated.firstKeptEntryId = idAt(value.firstKeptEntryIndex);
    return { line, value: migrated };
  });
}

function readMessage(
  entry: Record<string, unknown>,
  calls: ToolCalls,
  where: string,
): SessionMessage | null {
  const source = asRecord(entry.message);
  if (!source)
    throw invalidImport(where, "a message entry needs a `message` object");
  const id = entry.id as string;
  if (source.role === "user")
    return withParts(id, "user", textParts(contentText(source.content)));
  if (source.role === "assistant") {
    const message = withParts(
      id,
      "assistant",
      assistantParts(source.content, where),
    );
    if (message) calls.register(message);
    return message;
  }
  if (source.role === "toolResult") {
    calls.resolve(
      source.toolCallId,
      contentText(source.content),
      where,
      source.isError === true,
    );
    return null;
  }
  if (source.role === "bashExecution") return bashExecution(id, source, where);
  // custom, branchSummary, compactionSummary: not part of the conversation proper.
  return null;
}

/**
 * A command the user ran (`!cmd`, or `!!cmd` to keep it from the model): a user message with the
 * text Pi gives the model for it (the command, its output, how it ended), which is what the
 * conversation went on from; the command and its status stay readable in
 * `metadata.bashExecution`.
 */
function bashExecution(
  id: string,
  source: Record<string, unknown>,
  where: string,
): SessionMessage {
  if (typeof source.command !== "string")
    throw invalidImport(where, "a bashExecution needs a string `command`");
  const output = typeof source.output === "string" ? source.output : "";
  const exitCode = typeof source.exitCode === "number" ? source.exitCode : null;
  const lines = [
    `Ran \`${source.command}\``,
    output ? `\`\`\`\n${output}\n\`\`\`` : "(no output)",
  ];
  if (source.cancelled === true) lines.push("", "(command cancelled)");
  else if (exitCode !== null && exitCode !== 0)
    lines.push("", `Command exited with code ${exitCode}`);
  if (source.truncated === true && typeof source.fullOutputPath === "string")
    lines.push("", `[Output truncated. Full output: ${source.fullOutputPath}]`);
  return {
    id,
    role: "user",
    parts: [{ type: "text", text: lines.join("\n") }],
    metadata: {
      bashExecution: {
        command: source.command,
        exitCode,
        cancelled: source.cancelled === true,
        truncated: source.truncated === true,
        ...(typeof source.fullOutputPath === "string"
          ? { fullOutputPath: source.fullOutputPath }
          : {}),
        ...(source.excludeFromContext === true
          ? { excludeFromContext: true }
          : {}),
      },
    },
  };
}

function assistantParts(content: unknown, where: string): SessionMessagePart[] {
  if (typeof content === "string") return textParts(content);
  if (!Array.isArray(content))
    throw invalidImport(where, "assistant `content` must be an array");
  return content.flatMap((block): SessionMessagePart[] => {
    const item = asRecord(block);
    if (item?.type === "text" && typeof item.text === "string")
      return textParts(item.text);
    if (
      item?.type === "thinking" &&
      typeof item.thinking === "string" &&
      item.thinking.trim() !== ""
    )
      return [{ type: "reasoning", text: item.thinking }];
    if (item?.type === "toolCall") {
      if (typeof item.id !== "string" || typeof item.name !== "string")
        throw invalidImport(where, "a toolCall needs `id` and `name`");
      return [toolCallPart(item.name, item.id, item.arguments ?? {})];
    }
    if (item?.type === "image") return textParts(IMAGE_PLACEHOLDER);
    return [];
  });
}

function withParts(
  id: string,
  role: string,
  parts: SessionMessagePart[],
): SessionMessage | null {
  return parts.length > 0 ? { id, role, parts } : null;
}

/**
 * Pi's compaction keeps the path from `firstKeptEntryId` on and summarizes what came before: as
 * an overlay, that is the root-most kept message up to the last kept one before that entry.
 */
function overlayOf(
  entry: Record<string, unknown>,
  byId: ReadonlyMap<string, SourceNode>,
  tree: BuiltTree,
): StoredCompaction[] {
  if (typeof entry.summary !== "string" || entry.summary.trim() === "")
    return [];
  const firstKept = byId.get(String(entry.firstKeptEntryId));
  if (!firstKept) return [];
  const to = tree.resolve(firstKept.parentId);
  if (to === null) return [];
  let from = to;
  for (let node = byId.get(to); node; node = byId.get(node.parentId ?? "")) {
    const kept = tree.resolve(node.id);
    if (kept !== null) from = kept;
  }
  return [
    {
      id: entry.id as string,
      summary: entry.summary,
      fromMessageId: from,
      toMessageId: to,
      createdAt: isoTime(entry.timestamp, new Date(0).toISOString()),
      meta: {
        summarizer: "pi",
        ...(typeof entry.tokensBefore === "number"
          ? { tokensBefore: entry.tokensBefore }
          : {}),
      },
    },
  ];
}
