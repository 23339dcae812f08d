import type {
  SessionMessage,
  SessionMessagePart,
  StoredCompaction,
} from "../session/contracts/types.js";
import { asRecord, invalidImport } from "./import-error.js";
import { isoTime, parseJsonl, type JsonlLine } from "./json-text.js";
import {
  IMAGE_PLACEHOLDER,
  textParts,
  toolCallPart,
  ToolCalls,
  toolInput,
} from "./parts.js";
import {
  buildTree,
  conversationTimes,
  firstUserWords,
  type SourceNode,
} from "./tree.js";
import type { ParsedConversation, SkippedContent } from "./types.js";

/** The line types of a rollout (`{ timestamp, type, payload }`). */
const ROLLOUT_TYPES = new Set([
  "session_meta",
  "response_item",
  "event_msg",
  "turn_context",
  "compacted",
]);

/** Response items the model writes: they belong to the assistant's turn. */
const ASSISTANT_ITEMS = new Set([
  "reasoning",
  "function_call",
  "custom_tool_call",
  "local_shell_call",
  "web_search_call",
]);

/** User messages Codex writes itself (environment, AGENTS.md): they name no conversation. */
const CONTEXT_MESSAGE =
  /^\s*(<environment_context>|<user_instructions>|<INSTRUCTIONS>|# AGENTS\.md instructions)/;

/**
 * Reads a Codex CLI rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`): one
 * `{ timestamp, type, payload }` per line. `session_meta` gives the session id; each
 * `response_item` is read in order: a user message starts a user message, the model's items
 * (assistant text, reasoning summaries, `function_call`, `custom_tool_call`, `local_shell_call`,
 * `web_search_call`) form one assistant message per step (a new one after tool outputs), calls
 * as AI SDK tool parts whose `*_output` items are their outputs; `developer` and `system`
 * messages become system messages. A `compacted` line becomes an overlay over every message
 * before it. `event_msg` and `turn_context` lines repeat response items or hold settings and
 * are not read. Older rollouts without the `payload` wrapper are read the same way.
 */
export function parseCodex(
  text: string,
  fileName?: string,
): ParsedConversation {
  const reader = new RolloutReader();
  for (const line of parseJsonl(text)) reader.read(line);
  return reader.finish(fileName);
}

/** Whether JSON Lines look like a Codex rollout (the detector's test). */
export function isCodexRollout(
  records: ReadonlyArray<Record<string, unknown>>,
  fileName: string | undefined,
): boolean {
  if (
    records.some(
      (record) =>
        ROLLOUT_TYPES.has(String(record.type)) &&
        asRecord(record.payload) !== null,
    )
  )
    return true;
  // Rollouts of 2025's first versions: a `{ id, timestamp, instructions }` line, then bare items.
  return (
    /(^|[\\/])rollout-[^\\/]*\.jsonl$/i.test(fileName ?? "") &&
    records.some(
      (record) =>
        record.type === "message" || ASSISTANT_ITEMS.has(String(record.type)),
    )
  );
}

// --- Internal helpers ---

class RolloutReader {
  private readonly calls = new ToolCalls();
  private readonly nodes: SourceNode[] = [];
  private readonly compactions: StoredCompaction[] = [];
  private readonly skipped: SkippedContent[] = [];
  private sessionId: string | null = null;
  private start: string | null = null;
  private time = new Date(0).toISOString();
  /** The assistant message of the step being read, and whether a tool output closed the step. */
  private assistant: SessionMessage | null = null;
  private afterOutput = false;
  private encryptedReasoning = 0;

  read({ line, value }: JsonlLine): void {
    const where = `line ${line}`;
    const wrapped = ROLLOUT_TYPES.has(String(value.type));
    const payload = wrapped ? asRecord(value.payload) : value;
    if (!payload)
      throw invalidImport(where, "a rollout line needs a `payload` object");
    this.time = isoTime(value.timestamp ?? payload.timestamp, this.time);
    const kind = wrapped ? String(value.type) : this.bareKind(payload);
    if (kind === "session_meta") {
      if (typeof payload.id === "string") this.sessionId ??= payload.id;
      this.start ??= isoTime(payload.timestamp, this.time);
      return;
    }
    this.start ??= this.time;
    if (kind === "compacted") return this.compact(payload, where);
    if (kind !== "response_item") return;
    this.item(payload, line, where);
  }

  finish(fileName: string | undefined): ParsedConversation {
    if (this.encryptedReasoning > 0)
      this.skipped.push({
        where: "the file",
        what: "encrypted reasoning",
        reason: `${this.encryptedReasoning} reasoning item(s) carry encrypted content only the model can read; their summaries are kept`,
      });
    const tree = buildTree(this.nodes);
    return {
      snapshot: {
        format: "arbor.session",
        version: 1,
        sessionId: this.sessionId ?? crypto.randomUUID(),
        exportedAt: this.time,
        messages: tree.messages,
        compactions: this.compactions,
      },
      activeLeafId: this.nodes.at(-1)?.id ?? null,
      title: firstUserWords(
        tree.messages,
        fileName ?? "Codex session",
        (text) => (CONTEXT_MESSAGE.test(text) ? "" : text),
      ),
      format: "codex",
      source: { format: "codex", id: this.sessionId },
      times: conversationTimes(tree.messages, {
        ...(this.start !== null ? { createdAt: this.start } : {}),
        updatedAt: this.time,
      }),
      skipped: this.skipped,
    };
  }

  /** The kind of a line of an early rollout (no `payload` wrapper). */
  private bareKind(value: Record<string, unknown>): string {
    if (value.record_type === "state") return "state";
    if (value.type === undefined && typeof value.id === "string")
      return "session_meta";
    return "response_item";
  }

  private item(
    payload: Record<string, unknown>,
    line: number,
    where: string,
  ): void {
    const type = String(payload.type);
    if (type === "message") return this.message(payload, line, where);
    if (type === "function_call_output" || type === "custom_tool_call_output") {
      this.calls.resolve(payload.call_id, outputOf(payload.output), where);
      this.afterOutput = true;
      return;
    }
    if (!ASSISTANT_ITEMS.has(type)) {
      this.skipped.push({
        where,
        what: type,
        reason: "a response item this import does not read",
      });
      return;
    }
    const message = this.assistantMessage(line);
    message.parts.push(...this.assistantParts(payload, type, where));
    this.calls.register(message);
  }

  private message(
    payload: Record<string, unknown>,
    line: number,
    where: string,
  ): void {
    const role = payload.role;
    const parts = contentParts(payload.content, where, this.skipped);
    if (role === "assistant") {
      this.assistantMessage(line).parts.push(...parts);
      return;
    }
    if (role !== "user" && role !== "developer" && role !== "system")
      throw invalidImport(
        where,
        `a message needs the role user, assistant, developer or system; got ${JSON.stringify(role)}`,
      );
    this.assistant = null;
    if (parts.length === 0) return;
    this.push({
      id: `codex-${line}`,
      role: role === "user" ? "user" : "system",
      parts,
    });
  }

  /** The assistant message of this step: the open one, or a new one after a tool output. */
  private assistantMessage(line: number): SessionMessage {
    if (this.assistant && !this.afterOutput) return this.assistant;
    this.afterOutput = false;
    this.assistant = { id: `codex-${line}`, role: "assistant", parts: [] };
    this.push(this.assistant);
    return this.assistant;
  }

  private assistantParts(
    payload: Record<string, unknown>,
    type: string,
    where: string,
  ): SessionMessagePart[] {
    if (type === "reasoning") {
      if (typeof payload.encrypted_content === "string")
        this.encryptedReasoning++;
      const texts = [payload.summary, payload.content].flatMap((list) =>
        Array.isArray(list)
          ? list.map((entry) => asRecord(entry)?.text).filter(isText)
          : [],
      );
      return texts.map((text) => ({ type: "reasoning", text }));
    }
    if (type === "web_search_call") {
      // A search has no output item: its call is done when written.
      const part = toolCallPart(
        "web_search",
        typeof payload.id === "string" ? payload.id : `${where} web search`,
        payload.action ?? {},
      );
      return [
        { ...part, state: "output-available", output: payload.status ?? null },
      ];
    }
    if (typeof payload.call_id !== "string")
      throw invalidImport(where, `a ${type} needs a \`call_id\``);
    if (type === "local_shell_call")
      return [
        toolCallPart("local_shell", payload.call_id, payload.action ?? {}),
      ];
    if (typeof payload.name !== "string")
      throw invalidImport(where, `a ${type} needs a \`name\``);
    return [
      toolCallPart(
        payload.name,
        payload.call_id,
        type === "function_call"
          ? toolInput(payload.arguments)
          : (payload.input ?? ""),
      ),
    ];
  }

  private compact(payload: Record<string, unknown>, where: string): void {
    const first = this.nodes[0];
    const last = this.nodes.at(-1);
    if (!isText(payload.message) || !first || !last) {
      this.skipped.push({
        where,
        what: "compacted",
        reason: "a compaction with no summary or no message before it",
      });
      return;
    }
    this.compactions.push({
      id: `codex-compaction-${where.replace(/\D/g, "")}`,
      summary: payload.message,
      fromMessageId: first.id,
      toMessageId: last.id,
      createdAt: this.time,
      meta: { summarizer: "codex" },
    });
    this.assistant = null;
  }

  private push(message: SessionMessage): void {
    this.nodes.push({
      id: message.id,
      parentId: this.nodes.at(-1)?.id ?? null,
      createdAt: this.time,
      message,
      where: `line ${message.id.slice("codex-".length)}`,
    });
  }
}

/** The parts of a message's `content`: text items, images as `[image]` (reported). */
function contentParts(
  content: unknown,
  where: string,
  skipped: SkippedContent[],
): SessionMessagePart[] {
  if (typeof content === "string") return textParts(content);
  if (!Array.isArray(content)) return [];
  return content.flatMap((block): SessionMessagePart[] => {
    const item = asRecord(block);
    if (isText(item?.text)) return textParts(item.text);
    if (item?.type === "input_image") {
      skipped.push({
        where,
        what: "image",
        reason: '"[image]" stands in for an image sent to the model',
      });
      return textParts(IMAGE_PLACEHOLDER);
    }
    return [];
  });
}

/** A tool's output: its JSON parsed when it is JSON text (`{ output, metadata }`), else as is. */
function outputOf(output: unknown): unknown {
  return typeof output === "string" ? toolInput(output) : (output ?? null);
}

function isText(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}
