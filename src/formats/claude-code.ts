import type {
  SessionMessage,
  SessionMessagePart,
} from "../session/contracts/types.js";
import { asRecord, invalidImport } from "./import-error.js";
import { isoTime, parseJsonl } from "./json-text.js";
import {
  contentText,
  IMAGE_PLACEHOLDER,
  textParts,
  toolCallPart,
  ToolCalls,
} from "./parts.js";
import { buildTree, firstUserWords, type SourceNode } from "./tree.js";
import type { ParsedConversation } from "./types.js";

/**
 * Reads a Claude Code transcript (JSONL under `~/.claude/projects/`). Every line with a `uuid`
 * is a node of the tree (`parentUuid`), sidechains included; `user` and `assistant` lines are
 * kept (thinking as reasoning parts, `tool_use` as tool parts), a `tool_result` becomes the
 * output of its call, and other lines (`system`, meta messages) are skipped with their children
 * re-attached. Lines without a `uuid` are skipped; a `summary` line names the session. The last
 * kept line outside a sidechain is the active leaf.
 */
export function parseClaudeCode(
  text: string,
  fileName?: string,
): ParsedConversation {
  const calls = new ToolCalls();
  const nodes: SourceNode[] = [];
  let summary: string | null = null;
  let sessionId: string | null = null;
  let leaf: string | null = null;
  let start: string | null = null;
  for (const { line, value } of parseJsonl(text)) {
    const where = `line ${line}`;
    if (value.type === "summary" && typeof value.summary === "string")
      summary ??= value.summary;
    if (typeof value.uuid !== "string") continue;
    const parentId = value.parentUuid ?? null;
    if (parentId !== null && typeof parentId !== "string")
      throw invalidImport(where, "`parentUuid` must be a uuid or null");
    if (typeof value.sessionId === "string") sessionId ??= value.sessionId;
    const createdAt = isoTime(
      value.timestamp,
      start ?? new Date(0).toISOString(),
    );
    start ??= createdAt;
    const message = readLine(value, calls, where);
    nodes.push({ id: value.uuid, parentId, createdAt, message, where });
    if (message && value.isSidechain !== true) leaf = value.uuid;
  }
  const tree = buildTree(nodes);
  return {
    snapshot: {
      format: "arbor.session",
      version: 1,
      sessionId: sessionId ?? crypto.randomUUID(),
      exportedAt: start ?? new Date().toISOString(),
      messages: tree.messages,
      compactions: [],
    },
    activeLeafId: tree.resolve(leaf ?? nodes.at(-1)?.id ?? null),
    title:
      summary ??
      firstUserWords(tree.messages, fileName ?? "Claude Code session"),
    format: "claude-code",
  };
}

// --- Internal helpers ---

function readLine(
  value: Record<string, unknown>,
  calls: ToolCalls,
  where: string,
): SessionMessage | null {
  if (
    (value.type !== "user" && value.type !== "assistant") ||
    value.isMeta === true
  )
    return null;
  const source = asRecord(value.message);
  if (!source)
    throw invalidImport(
      where,
      `a ${value.type} line needs a \`message\` object`,
    );
  const id = value.uuid as string;
  const parts = contentParts(source.content, calls, where);
  if (parts.length === 0) return null;
  const message: SessionMessage = { id, role: value.type, parts };
  if (value.type === "assistant") calls.register(message);
  return message;
}

function contentParts(
  content: unknown,
  calls: ToolCalls,
  where: string,
): SessionMessagePart[] {
  if (typeof content === "string") return textParts(content);
  if (!Array.isArray(content))
    throw invalidImport(
      where,
      "`message.content` must be a string or an array",
    );
  return content.flatMap((block): SessionMessagePart[] => {
    const item = asRecord(block);
    switch (item?.type) {
      case "text":
        return typeof item.text === "string" ? textParts(item.text) : [];
      case "thinking":
        return typeof item.thinking === "string" && item.thinking.trim() !== ""
          ? [{ type: "reasoning", text: item.thinking }]
          : [];
      case "tool_use":
        if (typeof item.id !== "string" || typeof item.name !== "string")
          throw invalidImport(where, "a tool_use block needs `id` and `name`");
        return [toolCallPart(item.name, item.id, item.input ?? {})];
      case "tool_result":
        calls.resolve(
          item.tool_use_id,
          contentText(item.content),
          where,
          item.is_error === true,
        );
        return [];
      case "image":
        return textParts(IMAGE_PLACEHOLDER);
      default:
        return [];
    }
  });
}
