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

/**
 * The context Codex writes into the conversation itself, by the text it starts with, and the
 * kind each is marked with (`metadata.injectedContext`): the user did not type it, so it names
 * no session and a reader can fold it away.
 */
const INJECTED_KINDS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^# AGENTS\.md instructions\b/, "agents-md"],
  [/^<INSTRUCTIONS>/, "agents-md"],
  [/^<environment_context>/, "environment-context"],
  [/^<permissions instructions>/, "permissions"],
  [/^<user_instructions>/, "user-instructions"],
  [/^<developer_instructions>/, "developer-instructions"],
  [/^<collaboration_mode>/, "collaboration-mode"],
  [/^<skills_instructions>/, "skills"],
  [/^<plugins_instructions>/, "plugins"],
];

/** What a `developer` message holds when its text starts with none of the known tags. */
const DEVELOPER_CONTEXT = "developer-instructions";

/**
 * The request in a prompt of Codex's IDE extension and desktop app, which put the files the
 * user mentioned before it under their own heading.
 */
const IDE_REQUEST =
  /^\s*# Files mentioned by the user:[\s\S]*?## My request for Codex:\s*/;

/**
 * Reads a Codex CLI rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`): one
 * `{ timestamp, type, payload }` per line. `session_meta` gives the session id; each
 * `response_item` is read in order: a user message starts a user message, the model's items
 * (assistant text, reasoning summaries, `function_call`, `custom_tool_call`, `local_shell_call`,
 * `web_search_call`) form one assistant message per turn, from one prompt to the next, each
 * step (one model call: a new one after tool outputs) opened by a `step-start` part; calls are
 * AI SDK tool parts whose `*_output` items are their outputs; `developer` and
 * `system` messages become system messages. The context Codex writes itself (AGENTS.md, the
 * environment, permissions) is kept, marked `metadata.injectedContext`. A `user_message` event
 * is a prompt unless a user message item repeats it: the desktop app and IDE extension
 * (`source: "vscode"`) write their prompts only as events. A `compacted` line becomes an overlay
 * over every message before it. Other `event_msg` lines and `turn_context` lines repeat response
 * items or hold settings and are not read. Older rollouts without the `payload` wrapper are
 * read the same way.
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
  /**
   * The assistant message of the turn being read (all the model does between two prompts), and
   * whether its next part opens a step: the turn's first, or one after a tool output.
   */
  private turn: SessionMessage | null = null;
  private stepOpen = false;
  private encryptedReasoning = 0;
  /**
   * The prompts read since the model last wrote, as `promptKey()`s: from user message items and
   * from `user_message` events. The CLI writes each prompt both ways, one right after the other;
   * the desktop app only as an event. A prompt the other source already gave is not read again.
   */
  private readonly itemPrompts: string[] = [];
  private readonly eventPrompts: string[] = [];

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
    if (kind === "event_msg" && payload.type === "user_message")
      return this.eventPrompt(payload, line, where);
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
        (text) => (injectedKindOf(text) ? "" : text.replace(IDE_REQUEST, "")),
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
      this.stepOpen = false;
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
    this.addToTurn(line, this.assistantParts(payload, type, where));
  }

  private message(
    payload: Record<string, unknown>,
    line: number,
    where: string,
  ): void {
    const role = payload.role;
    const parts = contentParts(payload.content, where, this.skipped);
    if (role === "assistant") return this.addToTurn(line, parts);
    if (role !== "user" && role !== "developer" && role !== "system")
      throw invalidImport(
        where,
        `a message needs the role user, assistant, developer or system; got ${JSON.stringify(role)}`,
      );
    this.turn = null;
    if (parts.length === 0) return;
    const injected = injectedContext(parts, role);
    if (role === "user" && injected === null) {
      const key = promptKey(parts);
      if (takePrompt(this.eventPrompts, key)) return;
      this.itemPrompts.push(key);
    }
    this.push({
      id: `codex-${line}`,
      role: role === "user" ? "user" : "system",
      parts,
      ...(injected !== null ? { metadata: { injectedContext: injected } } : {}),
    });
  }

  /** A `user_message` event: the prompt itself where no user message item repeats it. */
  private eventPrompt(
    payload: Record<string, unknown>,
    line: number,
    where: string,
  ): void {
    const message = typeof payload.message === "string" ? payload.message : "";
    // Some versions also sent the context they wrote as events (`kind` other than `plain`),
    // always after its message item: it is no prompt.
    if (
      (typeof payload.kind === "string" && payload.kind !== "plain") ||
      injectedKindOf(message) !== null
    )
      return;
    const parts = textParts(message);
    const key = promptKey(parts);
    if (takePrompt(this.itemPrompts, key)) return;
    const images = [payload.images, payload.local_images].flatMap(
      (list): unknown[] => (Array.isArray(list) ? list : []),
    );
    images.forEach(() => {
      this.skipped.push({
        where,
        what: "image",
        reason: '"[image]" stands in for an image sent to the model',
      });
      parts.push(...textParts(IMAGE_PLACEHOLDER));
    });
    if (parts.length === 0) return;
    this.eventPrompts.push(key);
    this.turn = null;
    this.push({ id: `codex-${line}`, role: "user", parts });
  }

  /**
   * Adds what the model wrote to the turn's message, which the turn's first item starts: its id
   * is that line's, the id the first step's message had when each step was a message, so a
   * file imported before is still recognised message by message.
   */
  private addToTurn(line: number, parts: SessionMessagePart[]): void {
    // The model answers: a prompt repeated after this is a new one.
    this.itemPrompts.length = 0;
    this.eventPrompts.length = 0;
    if (this.turn === null) {
      this.turn = { id: `codex-${line}`, role: "assistant", parts: [] };
      this.stepOpen = false;
      this.push(this.turn);
    }
    if (parts.length === 0) return;
    // Each step opens with `step-start`, as the AI SDK streams it: converting the message back
    // to model messages splits it there, so each call's results come before the next step.
    if (!this.stepOpen) this.turn.parts.push({ type: "step-start" });
    this.stepOpen = true;
    this.turn.parts.push(...parts);
    this.calls.register(this.turn);
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
    // The overlay ends at the turn's message: what the model writes next is a message after it.
    this.turn = null;
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

/** The kind of context Codex wrote a text as, or `null` for anything else. */
function injectedKindOf(text: string): string | null {
  const start = text.trimStart();
  return INJECTED_KINDS.find(([pattern]) => pattern.test(start))?.[1] ?? null;
}

/**
 * The `injectedContext` of a message: the kind of its first text when every text of it is
 * context Codex wrote (a user message can hold AGENTS.md and the environment together); every
 * `developer` message is Codex's own. `null` for what the user wrote.
 */
function injectedContext(
  parts: readonly SessionMessagePart[],
  role: unknown,
): string | null {
  const kinds = parts.map((part) =>
    part.type === "text" && typeof part.text === "string"
      ? injectedKindOf(part.text)
      : null,
  );
  if (kinds.length > 0 && kinds.every((kind) => kind !== null))
    return kinds[0]!;
  return role === "developer" ? DEVELOPER_CONTEXT : null;
}

/** What identifies a prompt across its item and its event: its words, images left out. */
function promptKey(parts: readonly SessionMessagePart[]): string {
  return parts
    .map((part) =>
      part.type === "text" && part.text !== IMAGE_PLACEHOLDER
        ? String(part.text)
        : "",
    )
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Whether a prompt of `prompts` is the one `key` names; if so it and every prompt before it are
 * taken out. One holding the other's words is the same prompt: the CLI's item wraps a pasted
 * image in `<image>` tags its event does not have.
 */
function takePrompt(prompts: string[], key: string): boolean {
  const index = prompts.findIndex(
    (prompt) =>
      prompt === key ||
      (key !== "" &&
        prompt !== "" &&
        (prompt.includes(key) || key.includes(prompt))),
  );
  if (index === -1) return false;
  prompts.splice(0, index + 1);
  return true;
}

/** A tool's output: its JSON parsed when it is JSON text (`{ output, metadata }`), else as is. */
function outputOf(output: unknown): unknown {
  return typeof output === "string" ? toolInput(output) : (output ?? null);
}

function isText(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}
