import type {
  SessionMessage,
  SessionMessagePart,
  StoredCompaction,
} from "../session/contracts/types.js";
import { asRecord, invalidImport } from "./import-error.js";
import {
  markInjectedContext,
  type InjectedContextKind,
} from "./injected-context.js";
import { isoTime, parseJsonl } from "./json-text.js";
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
import type { ImportSource, ParsedConversation } from "./types.js";

/**
 * Reads a Claude Code transcript (JSONL under `~/.claude/projects/`). Every line with a `uuid`
 * is a node of the tree (`parentUuid`), sidechains included; `user` and `assistant` lines are
 * kept (thinking as reasoning parts, `tool_use` as tool parts), a `tool_result` becomes the
 * output of its call, and other lines (`system`, `progress`, meta lines of the assistant) are
 * skipped with their children re-attached. Claude Code writes one line per content block of a
 * response and hangs the line after parallel tool calls under whichever result it wrote last; a
 * result line is therefore re-attached under the last line of the response that made its call,
 * so every call of that response stays on the path. Lines without a `uuid` are skipped. The
 * session is named by a `summary` whose `leafUuid` is a line of this file, else by the first
 * user prompt that is not injected context or a slash command. The last kept line outside a
 * sidechain is the active leaf.
 *
 * Subagent runs (`isSidechain` lines) are not part of the main conversation: each run (a tree of
 * sidechain lines) is a conversation of its own after the main one, with `parentIndex: 0`, so
 * the import links it to the main session by `parent_session_id`. A file of sidechain lines
 * only (Claude Code 2.x writes each subagent to an `agent-*.jsonl` of its own) gives the runs
 * alone, each naming its session by `parentSource` (the `sessionId` its lines carry), so the
 * import links them whichever file comes first.
 *
 * User lines nobody typed (slash-command wrappers, local command output, system reminders, meta
 * lines) are kept, marked as injected context (`metadata.injectedContext`).
 */
export function parseClaudeCode(
  text: string,
  fileName?: string,
  options: TreeOptions = {},
): ParsedConversation[] {
  const calls = new ToolCalls();
  const nodes: SourceNode[] = [];
  const summaries: Array<{ summary: string; leafUuid: unknown }> = [];
  const parents = new Map<string, string | null>();
  /** The last line of each response (`message.id`), and the response of each tool call. */
  const lastLineOfResponse = new Map<string, string>();
  const responseOfCall = new Map<string, string>();
  /** The lines of subagent runs (`isSidechain`): sessions of their own. */
  const sidechain = new Set<string>();
  /** The summaries `/compact` (or an automatic compaction) wrote: overlays. */
  const compactSummaries: Array<{ id: string; summary: string; at: string }> =
    [];
  let sessionId: string | null = null;
  let leaf: string | null = null;
  let start: string | null = null;
  for (const { line, value } of parseJsonl(text)) {
    const where = `line ${line}`;
    if (value.type === "summary" && typeof value.summary === "string")
      summaries.push({ summary: value.summary, leafUuid: value.leafUuid });
    if (typeof value.uuid !== "string") continue;
    const written = value.parentUuid ?? null;
    if (written !== null && typeof written !== "string")
      throw invalidImport(where, "`parentUuid` must be a uuid or null");
    // A compaction boundary starts a new root; its logical parent is where the chat was (when
    // Claude Code names a line it never wrote, the last message before the boundary).
    const boundary = written === null && value.subtype === "compact_boundary";
    const parentUuid = !boundary
      ? written
      : typeof value.logicalParentUuid === "string" &&
          parents.has(value.logicalParentUuid)
        ? value.logicalParentUuid
        : leaf;
    if (typeof value.sessionId === "string") sessionId ??= value.sessionId;
    const createdAt = isoTime(
      value.timestamp,
      start ?? new Date(0).toISOString(),
    );
    start ??= createdAt;
    const message =
      value.isCompactSummary === true ? null : readLine(value, calls, where);
    if (value.isCompactSummary === true) {
      const summary = contentText(asRecord(value.message)?.content);
      if (summary.trim() !== "")
        compactSummaries.push({ id: value.uuid, summary, at: createdAt });
    }
    rememberResponse(value, lastLineOfResponse, responseOfCall);
    const parentId =
      message === null
        ? (resultParent(value, parents, lastLineOfResponse, responseOfCall) ??
          parentUuid)
        : parentUuid;
    parents.set(value.uuid, parentId);
    nodes.push({ id: value.uuid, parentId, createdAt, message, where });
    if (value.isSidechain === true) sidechain.add(value.uuid);
    else if (message) leaf = value.uuid;
  }
  const summary = summaries.find(
    (entry) =>
      typeof entry.leafUuid === "string" && parents.has(entry.leafUuid),
  )?.summary;
  const mainNodes = nodes.filter((node) => !sidechain.has(node.id));
  const runs = sidechainRuns(
    nodes.filter((node) => sidechain.has(node.id)),
    sidechain,
  );
  const conversations: ParsedConversation[] = [];
  const id = sessionId ?? crypto.randomUUID();
  const source = (suffix: string) => ({
    format: "claude-code",
    id: sessionId === null ? null : `${sessionId}${suffix}`,
  });
  if (mainNodes.length > 0 || runs.length === 0) {
    const tree = buildTree(mainNodes, options);
    conversations.push(
      conversationOf(tree, {
        compactions: overlaysOf(compactSummaries, parents, tree),
        sessionId: id,
        exportedAt: start,
        leaf: leaf ?? mainNodes.at(-1)?.id ?? null,
        source: source(""),
        title:
          summary ??
          firstUserWords(
            tree.messages,
            fileName ?? "Claude Code session",
            commandOf,
          ),
      }),
    );
  }
  const main = conversations[0];
  runs.forEach((run, index) => {
    const tree = buildTree(run, options);
    const words = firstUserWords(tree.messages, `run ${index + 1}`);
    conversations.push({
      ...conversationOf(tree, {
        sessionId: `${id}-sidechain-${index + 1}`,
        exportedAt: start,
        leaf: run.at(-1)?.id ?? null,
        source: source(`/${run[0]!.id}`),
        title: main
          ? `${main.title} · subagent: ${words}`
          : `Subagent: ${words}`,
      }),
      // A subagent file of its own carries its session's id: the link waits for that session.
      ...(main
        ? { parentIndex: 0 }
        : sessionId !== null
          ? { parentSource: { format: "claude-code", id: sessionId } }
          : {}),
    });
  });
  return conversations;
}

// --- Internal helpers ---

function conversationOf(
  tree: BuiltTree,
  options: {
    sessionId: string;
    exportedAt: string | null;
    leaf: string | null;
    title: string;
    source: ImportSource;
    compactions?: StoredCompaction[];
  },
): ParsedConversation {
  return {
    snapshot: {
      format: "arbor.session",
      version: 1,
      sessionId: options.sessionId,
      exportedAt: options.exportedAt ?? new Date().toISOString(),
      messages: tree.messages,
      compactions: options.compactions ?? [],
    },
    activeLeafId: tree.resolve(options.leaf),
    title: options.title,
    format: "claude-code",
    source: options.source,
    times: conversationTimes(tree.messages),
    warnings: tree.warnings,
  };
}

/**
 * A compaction's summary becomes an overlay over the messages before it: from the first message
 * of its path to the last one before the summary, as Claude Code replaced them in the model's
 * context.
 */
function overlaysOf(
  summaries: ReadonlyArray<{ id: string; summary: string; at: string }>,
  parents: ReadonlyMap<string, string | null>,
  tree: BuiltTree,
): StoredCompaction[] {
  return summaries.flatMap(({ id, summary, at }) => {
    const to = tree.resolve(parents.get(id) ?? null);
    if (to === null) return [];
    let from = to;
    // Bounded walk to the root: the tree has no cycle (buildTree checked it).
    for (
      let node: string | null | undefined = to, steps = 0;
      node != null && steps <= parents.size;
      node = parents.get(node), steps++
    ) {
      const kept = tree.resolve(node);
      if (kept !== null) from = kept;
    }
    return [
      {
        id: `claude-code-compaction-${id}`,
        summary,
        fromMessageId: from,
        toMessageId: to,
        createdAt: at,
        meta: { summarizer: "claude-code" },
      },
    ];
  });
}

/**
 * Groups sidechain lines into runs: each line joins the run of its topmost sidechain ancestor.
 * A run's first line that hangs under a main-chain line becomes the root of its own session.
 */
function sidechainRuns(
  lines: readonly SourceNode[],
  sidechain: ReadonlySet<string>,
): SourceNode[][] {
  const byId = new Map(lines.map((node) => [node.id, node]));
  const runs = new Map<string, SourceNode[]>();
  for (const node of lines) {
    let top = node;
    // Bounded: a cycle is reported by buildTree, not looped on here.
    for (let steps = 0; steps < lines.length; steps++) {
      const parent = top.parentId === null ? undefined : byId.get(top.parentId);
      if (!parent) break;
      top = parent;
    }
    const run = runs.get(top.id) ?? [];
    run.push(
      node === top && node.parentId !== null && !sidechain.has(node.parentId)
        ? { ...node, parentId: null }
        : node,
    );
    runs.set(top.id, run);
  }
  return [...runs.values()];
}

/** Records the last line of an assistant response and which response made each tool call. */
function rememberResponse(
  value: Record<string, unknown>,
  lastLineOfResponse: Map<string, string>,
  responseOfCall: Map<string, string>,
): void {
  if (value.type !== "assistant") return;
  const source = asRecord(value.message);
  if (typeof source?.id !== "string") return;
  lastLineOfResponse.set(source.id, value.uuid as string);
  if (!Array.isArray(source.content)) return;
  for (const block of source.content) {
    const item = asRecord(block);
    if (item?.type === "tool_use" && typeof item.id === "string")
      responseOfCall.set(item.id, source.id);
  }
}

/**
 * Where a skipped tool-result line belongs: under the last line (so far) of the response that
 * made its call, unless that line descends from the result line itself (then, as written).
 */
function resultParent(
  value: Record<string, unknown>,
  parents: ReadonlyMap<string, string | null>,
  lastLineOfResponse: ReadonlyMap<string, string>,
  responseOfCall: ReadonlyMap<string, string>,
): string | null {
  const content = asRecord(value.message)?.content;
  if (!Array.isArray(content)) return null;
  let target: string | null = null;
  for (const block of content) {
    const item = asRecord(block);
    if (item?.type !== "tool_result" || typeof item.tool_use_id !== "string")
      continue;
    const response = responseOfCall.get(item.tool_use_id);
    target = response ? (lastLineOfResponse.get(response) ?? target) : target;
  }
  if (target === null) return null;
  // Bounded walk up the lines read so far: a line descending from this one would make a cycle.
  for (
    let id: string | null | undefined = target, steps = 0;
    id != null && steps <= parents.size;
    id = parents.get(id), steps++
  )
    if (id === value.uuid) return null;
  return target;
}

/** Slash-command wrappers Claude Code writes as user text, which name no conversation. */
const COMMAND_WRAPPER =
  /<(command-name|command-message|command-args|local-command-stdout|local-command-stderr|system-reminder)>[\s\S]*?<\/\1>/g;

function withoutCommandWrappers(text: string): string {
  return text.replace(COMMAND_WRAPPER, "");
}

/** The wrappers gone, but a slash command's name kept: what names a session of commands only. */
function commandOf(text: string): string {
  return text.replace(COMMAND_WRAPPER, (wrapper, tag: string) =>
    tag === "command-name"
      ? wrapper.slice("<command-name>".length, -"</command-name>".length)
      : "",
  );
}

/** The caveat Claude Code writes before the output of a local command (`!ls`, `/cost`). */
const LOCAL_COMMAND_CAVEAT =
  /^\s*Caveat: The messages below were generated by the user/;

/**
 * What kind of injected context a user line is, or `null` for a prompt someone typed: a line of
 * wrappers only (a slash command, a local command's output, a system reminder), the caveat
 * before local commands, or a meta line (Claude Code's own text: a command's or skill's
 * expansion). A prompt with a reminder appended stays a prompt.
 */
function injectedKind(
  value: Record<string, unknown>,
  parts: readonly SessionMessagePart[],
): InjectedContextKind | null {
  const text = parts
    .map((part) => (part.type === "text" ? String(part.text ?? "") : ""))
    .join("\n");
  if (text.trim() === "") return null;
  const wrappersOnly = withoutCommandWrappers(text).trim() === "";
  if (wrappersOnly && /<command-(name|message)>/.test(text))
    return "slash-command";
  if (wrappersOnly && /<local-command-(stdout|stderr)>/.test(text))
    return "command-output";
  if (wrappersOnly || LOCAL_COMMAND_CAVEAT.test(text)) return "system-reminder";
  return value.isMeta === true ? "slash-command" : null;
}

function readLine(
  value: Record<string, unknown>,
  calls: ToolCalls,
  where: string,
): SessionMessage | null {
  if (
    (value.type !== "user" && value.type !== "assistant") ||
    (value.isMeta === true && value.type !== "user")
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
  const kind = value.type === "user" ? injectedKind(value, parts) : null;
  return kind === null ? message : markInjectedContext(message, kind);
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
