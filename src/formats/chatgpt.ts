import type {
  SessionMessage,
  SessionMessagePart,
} from "../session/contracts/types.js";
import { asRecord, invalidImport } from "./import-error.js";
import { parseJsonDocument } from "./json-text.js";
import { IMAGE_PLACEHOLDER, textParts } from "./parts.js";
import { buildTree, type SourceNode } from "./tree.js";
import type { ParsedConversation } from "./types.js";

/**
 * Reads ChatGPT's `conversations.json` (an array of conversations, or one). The `mapping` is the
 * tree; hidden and empty nodes are skipped and their children re-attached; `current_node` is the
 * active leaf. `tool` messages are folded, as text, into the assistant message they answer.
 */
export function parseChatGpt(text: string): ParsedConversation[] {
  const value = parseJsonDocument(text);
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, index) => readConversation(item, index));
}

// --- Internal helpers ---

function readConversation(value: unknown, index: number): ParsedConversation {
  const conversation = asRecord(value);
  const title =
    typeof conversation?.title === "string" && conversation.title.trim() !== ""
      ? conversation.title
      : `Conversation ${index + 1}`;
  const label = `conversation "${title}"`;
  const mapping = asRecord(conversation?.mapping);
  if (!conversation || !mapping)
    throw invalidImport(
      label,
      "expected a conversation with a `mapping` object",
    );
  const start = epochIso(conversation.create_time) ?? new Date(0).toISOString();
  const nodes: SourceNode[] = [];
  const times = new Map<string, string>();
  for (const [key, raw] of Object.entries(mapping)) {
    const where = `${label} node "${key}"`;
    const node = asRecord(raw);
    if (!node) throw invalidImport(where, "expected a node object");
    const parentId = node.parent ?? null;
    if (parentId !== null && typeof parentId !== "string")
      throw invalidImport(where, "`parent` must be a node id or null");
    const source = asRecord(node.message);
    const createdAt =
      epochIso(source?.create_time) ??
      (parentId !== null ? times.get(parentId) : undefined) ??
      start;
    times.set(key, createdAt);
    nodes.push({
      id: key,
      parentId,
      createdAt,
      message: toMessage(key, source),
      where,
    });
  }
  foldToolOutputs(nodes, mapping);
  const tree = buildTree(
    nodes.map((node) => ({ ...node, message: nonEmpty(node.message) })),
  );
  const current =
    typeof conversation.current_node === "string"
      ? conversation.current_node
      : null;
  const conversationId = conversation.conversation_id ?? conversation.id;
  return {
    snapshot: {
      format: "arbor.session",
      version: 1,
      sessionId:
        typeof conversationId === "string"
          ? conversationId
          : crypto.randomUUID(),
      exportedAt: epochIso(conversation.update_time) ?? start,
      messages: tree.messages,
      compactions: [],
    },
    activeLeafId: tree.resolve(current),
    title,
    format: "chatgpt",
  };
}

/** A tool's output joins the assistant message it answers: its nearest assistant ancestor. */
function foldToolOutputs(
  nodes: SourceNode[],
  mapping: Record<string, unknown>,
): void {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  for (const node of nodes) {
    const source = asRecord(asRecord(mapping[node.id])?.message);
    if (asRecord(source?.author)?.role !== "tool") continue;
    let ancestor = byId.get(node.parentId ?? "");
    // Bounded: a cycle in the mapping is reported by buildTree, not looped on here.
    for (let steps = 0; ancestor && steps < nodes.length; steps++) {
      if (ancestor.message?.role === "assistant") {
        ancestor.message.parts.push(...toolOutputParts(source!));
        break;
      }
      ancestor = byId.get(ancestor.parentId ?? "");
    }
  }
}

/** The message a node keeps, or `null` for the nodes the export hides. */
function toMessage(
  id: string,
  source: Record<string, unknown> | null,
): SessionMessage | null {
  if (!source) return null;
  const role = asRecord(source.author)?.role;
  const metadata = asRecord(source.metadata);
  if (metadata?.is_visually_hidden_from_conversation === true) return null;
  if (role !== "user" && role !== "assistant" && role !== "system") return null;
  // An assistant message addressed to a tool (recipient "python", "browser") is the call itself.
  const recipient =
    typeof source.recipient === "string" ? source.recipient : "all";
  const text = contentText(asRecord(source.content));
  if (text === null) return null;
  const shown =
    role === "assistant" && recipient !== "all"
      ? `Call to ${recipient}:\n${text}`
      : text;
  return { id, role, parts: textParts(shown) };
}

function nonEmpty(message: SessionMessage | null): SessionMessage | null {
  return message && message.parts.length > 0 ? message : null;
}

function toolOutputParts(
  source: Record<string, unknown>,
): SessionMessagePart[] {
  const name = asRecord(source.author)?.name;
  const text = contentText(asRecord(source.content));
  if (!text) return [];
  return textParts(
    `Output of ${typeof name === "string" ? name : "tool"}:\n${text}`,
  );
}

/** The readable text of a ChatGPT content object; `null` for content that is never shown. */
function contentText(content: Record<string, unknown> | null): string | null {
  if (!content) return null;
  const type = content.content_type;
  if (type === "user_editable_context" || type === "model_editable_context")
    return null;
  if (type === "code" || type === "execution_output") {
    const language =
      type === "code" &&
      typeof content.language === "string" &&
      content.language !== "unknown"
        ? content.language
        : "";
    const body = typeof content.text === "string" ? content.text : "";
    return body.trim() === "" ? "" : `\`\`\`${language}\n${body}\n\`\`\``;
  }
  if (type === "tether_quote") {
    const quoted = typeof content.text === "string" ? content.text : "";
    const source =
      typeof content.title === "string" ? content.title : content.url;
    return [
      source ? `> ${String(source)}` : "",
      ...quoted.split("\n").map((line) => `> ${line}`),
    ]
      .filter((line) => line !== "")
      .join("\n");
  }
  if (Array.isArray(content.parts))
    return content.parts
      .map(partText)
      .filter((text) => text !== "")
      .join("\n");
  return typeof content.text === "string" ? content.text : "";
}

function partText(part: unknown): string {
  if (typeof part === "string") return part;
  const object = asRecord(part);
  if (!object) return "";
  if (object.content_type === "image_asset_pointer") return IMAGE_PLACEHOLDER;
  if (typeof object.text === "string") return object.text;
  return typeof object.content_type === "string"
    ? `[${object.content_type}]`
    : "";
}

function epochIso(value: unknown): string | undefined {
  return typeof value === "number" && Number.isFinite(value)
    ? new Date(value * 1000).toISOString()
    : undefined;
}
