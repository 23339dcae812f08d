import type { AgentInputItem } from "@openai/agents-core";
import type { SessionMessage, SessionMessagePart } from "../session/index.js";

/**
 * Where an Arbor message keeps the Agents SDK item it was written from: the item as it was
 * given, whole, so `getItems()` returns it unchanged whatever the readable parts beside it say.
 */
export const ITEM_METADATA = "openaiAgents";

/** The message's `metadata.openaiAgents`: the item and, on a turn's user message, its usage. */
export interface StoredItemMetadata {
  item: AgentInputItem;
  usage?: TurnUsage;
}

/** Token usage of one turn, summed over the model calls of the runs stored for it. */
export interface TurnUsage {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/**
 * One Arbor message for one item: the item kept verbatim in its metadata, and a readable mirror
 * in `role` and `parts` (text, reasoning, tool calls and results as the AI SDK's `dynamic-tool`
 * parts) for the studio, the CLI and search. The mirror is never read back as an item.
 */
export function messageOf(item: AgentInputItem, id: string): SessionMessage {
  const { role, parts } = mirrorOf(item);
  return {
    id,
    role,
    parts,
    // A copy: a caller that changes its item afterwards does not change what a store that
    // keeps objects (the in-memory one) holds.
    metadata: {
      [ITEM_METADATA]: {
        item: structuredClone(item),
      } satisfies StoredItemMetadata,
    },
  };
}

/** The stored metadata of a message written by `messageOf()`, or `undefined`. */
export function storedOf(
  message: SessionMessage,
): StoredItemMetadata | undefined {
  const metadata = message.metadata;
  if (typeof metadata !== "object" || metadata === null) return undefined;
  const stored = (metadata as Record<string, unknown>)[ITEM_METADATA];
  if (typeof stored !== "object" || stored === null) return undefined;
  return "item" in stored ? (stored as StoredItemMetadata) : undefined;
}

/**
 * The item of a message: the stored one, or, for a message written by other means (the studio,
 * the CLI, the HTTP API, a compaction summary), an input message with its text, so the agent
 * sees what was added beside it. A message with neither is left out (`undefined`).
 */
export function itemOf(message: SessionMessage): AgentInputItem | undefined {
  const stored = storedOf(message);
  if (stored) return structuredClone(stored.item);
  const text = message.parts
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
  if (text === "") return undefined;
  if (message.role === "assistant") {
    return {
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text }],
    };
  }
  if (message.role === "system") return { role: "system", content: text };
  return { role: "user", content: text };
}

/** A user message item: what starts a turn. */
export function isUserMessage(item: AgentInputItem | undefined): boolean {
  return (
    item !== undefined &&
    (item.type === undefined || item.type === "message") &&
    "role" in item &&
    item.role === "user"
  );
}

/** The text of a user or assistant message item, parts joined by a newline. */
export function textOf(item: AgentInputItem): string {
  if (!("content" in item)) return "";
  const content: unknown = item.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: unknown) => {
      if (typeof part !== "object" || part === null) return "";
      const { text, refusal } = part as { text?: unknown; refusal?: unknown };
      if (typeof text === "string") return text;
      return typeof refusal === "string" ? refusal : "";
    })
    .filter((text) => text !== "")
    .join("\n");
}

// --- Internal helpers ---

function mirrorOf(item: AgentInputItem): {
  role: string;
  parts: SessionMessagePart[];
} {
  const record = item as Record<string, unknown>;
  const type = typeof record.type === "string" ? record.type : "message";
  if (type === "message") {
    const role =
      record.role === "developer"
        ? "system"
        : typeof record.role === "string"
          ? record.role
          : "user";
    const text = textOf(item);
    return { role, parts: text === "" ? [] : [{ type: "text", text }] };
  }
  if (type === "reasoning") {
    const text = reasoningText(record);
    return {
      role: "assistant",
      parts: text === "" ? [] : [{ type: "reasoning", text }],
    };
  }
  if (type === "function_call") {
    return {
      role: "assistant",
      parts: [
        toolPart(record, "input-available", parseArguments(record.arguments)),
      ],
    };
  }
  if (type === "function_call_result") {
    return {
      role: "assistant",
      parts: [toolPart(record, "output-available", undefined, record.output)],
    };
  }
  if (type.endsWith("_result") || type.endsWith("_output")) {
    return {
      role: "assistant",
      parts: [toolPart(record, "output-available", undefined, record.output)],
    };
  }
  if (type.endsWith("_call")) {
    // Hosted, computer, shell and patch calls: the tool is named by the item's own name or type.
    const input = record.arguments ?? record.action ?? record.operation;
    return {
      role: "assistant",
      parts: [
        toolPart(
          record,
          record.output === undefined ? "input-available" : "output-available",
          typeof input === "string" ? parseArguments(input) : input,
          record.output,
        ),
      ],
    };
  }
  // Compaction markers and item types newer than this mirror: kept, shown without parts.
  return { role: "assistant", parts: [] };
}

function toolPart(
  record: Record<string, unknown>,
  state: string,
  input: unknown,
  output?: unknown,
): SessionMessagePart {
  const name =
    typeof record.name === "string" ? record.name : String(record.type);
  const callId =
    typeof record.callId === "string"
      ? record.callId
      : typeof record.id === "string"
        ? record.id
        : name;
  const part: SessionMessagePart = {
    type: "dynamic-tool",
    toolName: name,
    toolCallId: callId,
    state,
  };
  if (input !== undefined) part.input = input;
  if (output !== undefined) part.output = output;
  return part;
}

/** Function arguments as the JSON they hold, or the text when it is not JSON. */
function parseArguments(text: unknown): unknown {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function reasoningText(record: Record<string, unknown>): string {
  const pieces = [record.content, record.summary]
    .filter(Array.isArray)
    .flat()
    .map((entry: unknown) =>
      typeof entry === "object" &&
      entry !== null &&
      typeof (entry as { text?: unknown }).text === "string"
        ? (entry as { text: string }).text
        : "",
    )
    .filter((text) => text !== "");
  return pieces.join("\n");
}
