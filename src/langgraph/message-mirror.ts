import { sha256Hex } from "../session/encoding/sha256.js";
import type { SessionMessage, SessionMessagePart } from "../session/index.js";

// The `messages` channel of a thread's root graph, mirrored as Arbor messages so the studio, the
// CLI and search show the conversation (docs/langgraph.md, "What maps to what"). The mirror is a
// view for people and search: LangGraph never reads it back (checkpoints are read from their own
// entries), so nothing it loses can change a run.
//
// LangGraph keeps a message's id when a fork edits it (`add_messages` replaces by id) and reuses
// the ids of the messages before the fork point, while an id is unique in an Arbor session. So a
// mirrored id is derived from the message's lineage: its parent's mirrored id, its LangGraph id
// and its content. The same prefix of two checkpoints maps to the same Arbor messages, and the
// first message that a fork changes (edited, removed, or inserted before) gets a new id under the
// same parent: a sibling, so a fork made by time travel is a branch of the Arbor tree.

/** The Arbor message of each LangGraph message, in order, each the child of the one before. */
export function mirroredMessages(
  values: readonly unknown[],
  createdAt: Date,
): SessionMessage[] {
  const mirrored: SessionMessage[] = [];
  let parentId = "";
  for (const value of values) {
    const message = arborMessageOf(value, createdAt);
    if (message === null) continue;
    const lineage = JSON.stringify([
      parentId,
      message.metadata.langgraph.id,
      message.role,
      message.parts,
    ]);
    parentId = `lg-${sha256Hex(UTF8.encode(lineage)).slice(0, 32)}`;
    mirrored.push({ ...message, id: parentId });
  }
  return mirrored;
}

// --- Internal helpers ---

const UTF8 = new TextEncoder();

/**
 * LangChain message types by the role Arbor stores. A tool result is the assistant's, as the AI
 * SDK keeps it: a tool part with the output, its call id and its tool's name.
 */
const ROLES: Readonly<Record<string, string>> = {
  human: "user",
  user: "user",
  ai: "assistant",
  assistant: "assistant",
  tool: "assistant",
  system: "system",
  developer: "system",
};

interface LangGraphMessageFields {
  id?: unknown;
  content?: unknown;
  name?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
  type?: unknown;
  getType?: () => string;
  _getType?: () => string;
  role?: unknown;
}

/** A mirrored message before its lineage id. */
interface MirroredMessage {
  role: string;
  parts: SessionMessagePart[];
  createdAt: Date;
  metadata: { langgraph: { id: string | null; type: string } };
}

/** The message as Arbor stores it, or `null` for a value that is not a message. */
function arborMessageOf(
  value: unknown,
  createdAt: Date,
): MirroredMessage | null {
  if (typeof value !== "object" || value === null) return null;
  const fields = value as LangGraphMessageFields;
  const type = typeOf(fields);
  const role = ROLES[type];
  if (role === undefined) return null;
  const parts =
    type === "tool"
      ? [
          {
            type: "dynamic-tool",
            toolName: typeof fields.name === "string" ? fields.name : "",
            toolCallId: textOf(fields.tool_call_id),
            state: "output-available",
            output: fields.content,
          },
        ]
      : contentParts(fields.content);
  if (Array.isArray(fields.tool_calls))
    for (const call of fields.tool_calls as Record<string, unknown>[])
      parts.push({
        type: "dynamic-tool",
        toolName: textOf(call.name),
        toolCallId: textOf(call.id),
        state: "input-available",
        input: call.args ?? {},
      });
  return {
    role,
    parts,
    createdAt,
    metadata: {
      langgraph: {
        id: typeof fields.id === "string" ? fields.id : null,
        type,
        ...(typeof fields.name === "string" ? { name: fields.name } : {}),
        ...(typeof fields.tool_call_id === "string"
          ? { toolCallId: fields.tool_call_id }
          : {}),
      },
    },
  };
}

function textOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function typeOf(fields: LangGraphMessageFields): string {
  if (typeof fields.getType === "function") return fields.getType();
  if (typeof fields._getType === "function") return fields._getType();
  if (typeof fields.type === "string") return fields.type;
  if (typeof fields.role === "string") return fields.role;
  return "unknown";
}

/** Text as text parts; other content blocks (images, files…) kept as data parts. */
function contentParts(content: unknown): SessionMessagePart[] {
  if (typeof content === "string")
    return content === "" ? [] : [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  return content.map((block: unknown) => {
    if (typeof block === "string") return { type: "text", text: block };
    const record = (block ?? {}) as Record<string, unknown>;
    return record.type === "text" && typeof record.text === "string"
      ? { type: "text", text: record.text }
      : { type: "data-langchain-content", data: record };
  });
}
