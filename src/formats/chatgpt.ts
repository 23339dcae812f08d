import type {
  SessionMessage,
  SessionMessagePart,
} from "../session/contracts/types.js";
import { asRecord, invalidImport } from "./import-error.js";
import { jsonArrayElements } from "./json-stream.js";
import { parseJsonDocument } from "./json-text.js";
import { toolNameOf } from "../session/messages/tool-parts.js";
import {
  IMAGE_PLACEHOLDER,
  textParts,
  toolCallPart,
  toolInput,
} from "./parts.js";
import {
  buildTree,
  conversationTimes,
  type SourceNode,
  type TreeOptions,
} from "./tree.js";
import type { ParsedConversation, SkippedContent } from "./types.js";
import { textOf } from "../session/errors/text-of.js";

/**
 * Reads ChatGPT's `conversations.json` (an array of conversations, or one). The `mapping` is the
 * tree; hidden and empty nodes are skipped and their children re-attached; `current_node` is the
 * active leaf. An assistant message to a tool is an AI SDK tool part, and the `tool` messages
 * that answer it are its output.
 * Every content type of the export is read (docs/formats.md); what is left out is listed in
 * each conversation's `skipped`.
 */
export function parseChatGpt(
  text: string,
  options: TreeOptions = {},
): ParsedConversation[] {
  const value = parseJsonDocument(text);
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, index) => readConversation(item, index, options));
}

/**
 * Reads a ChatGPT export as a stream, one conversation at a time: the file's text in chunks
 * (from `conversations.json`, or from the export's zip through `zipEntryStream()`), so memory is
 * bounded by the largest conversation, not the file. Each conversation is checked as
 * `parseChatGpt()` checks it.
 */
export async function* streamChatGpt(
  chunks: AsyncIterable<string>,
  options: TreeOptions = {},
): AsyncGenerator<ParsedConversation> {
  let index = 0;
  for await (const element of jsonArrayElements(chunks)) {
    let value: unknown;
    try {
      value = JSON.parse(element.text);
    } catch (error) {
      throw invalidImport(
        `line ${element.line}`,
        `invalid JSON in conversation ${index + 1} (${(error as Error).message})`,
        error,
      );
    }
    yield readConversation(value, index++, options);
  }
}

// --- Internal helpers ---

/** What one message's content reads as. */
interface ReadContent {
  text: string;
  reasoning: string[];
  /** The images it shows, each standing as `[image]` in `text`. */
  images: ChatGptImage[];
}

/**
 * An image a message shows, kept by reference in `metadata.images` (conversations.json holds
 * no image data; the export's zip does, and then the image is also a file part).
 */
export interface ChatGptImage {
  /** `file-service://file-…` or `sediment://file_…`: names the file in the export's zip. */
  assetPointer: string;
  width?: number;
  height?: number;
  sizeBytes?: number;
  /** The file of the export's zip the image was read from. */
  fileName?: string;
}

/**
 * A source a message cites, kept in `metadata.citations`: what the `【n†source】` marks of its
 * text point at. From ChatGPT's `metadata.citations` (`start_ix`/`end_ix` into the text) and
 * `metadata.content_references` (`matched_text`, `start_idx`/`end_idx`).
 */
export interface ChatGptCitation {
  url: string;
  title?: string;
  /** The mark in the text, `【3:0†source】`. */
  mark?: string;
  /** Where the mark is in the text, as the export gives it. */
  start?: number;
  end?: number;
}

function readConversation(
  value: unknown,
  index: number,
  options: TreeOptions,
): ParsedConversation {
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
  const skipped: SkippedContent[] = [];
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
      message: toMessage(key, source, where, skipped),
      where,
    });
  }
  foldToolOutputs(nodes, mapping, label, skipped);
  const tree = buildTree(
    nodes.map((node) => ({ ...node, message: nonEmpty(node.message) })),
    options,
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
    source: {
      format: "chatgpt",
      id: typeof conversationId === "string" ? conversationId : null,
    },
    times: conversationTimes(tree.messages, {
      createdAt: epochIso(conversation.create_time),
      updatedAt: epochIso(conversation.update_time),
    }),
    skipped,
    warnings: tree.warnings,
  };
}

/**
 * A tool's output becomes the output of the call it answers: the nearest tool part before it
 * (up to the user's message) of the same tool, else the nearest one still waiting for an
 * output. An output with no call
 * (the file search's instructions after an upload, an image the model made) is kept where it
 * is, as an assistant message of its own.
 */
function foldToolOutputs(
  nodes: SourceNode[],
  mapping: Record<string, unknown>,
  label: string,
  skipped: SkippedContent[],
): void {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  for (const node of nodes) {
    const source = asRecord(asRecord(mapping[node.id])?.message);
    if (asRecord(source?.author)?.role !== "tool") continue;
    const where = `${label} node "${node.id}"`;
    const name = asRecord(source!.author)?.name;
    const tool = typeof name === "string" && name !== "" ? name : "tool";
    const content = asRecord(source!.content);
    const { text, images } = readContent(content, where, skipped);
    if (text === "") continue;
    const found = findCall(node, byId, tool, nodes.length);
    if (!found) {
      node.message = {
        id: node.id,
        role: "assistant",
        parts: textParts(`Output of ${tool}:\n${text}`),
        ...(images.length > 0 ? { metadata: { images } } : {}),
      };
      continue;
    }
    const call = found.part;
    // An image a tool made (an image generation) belongs to the message of its call.
    if (images.length > 0)
      found.message.metadata = {
        ...(found.message.metadata as Record<string, unknown> | undefined),
        images: [...imagesOf(found.message), ...images],
      };
    if (content?.content_type === "system_error") {
      call.state = "output-error";
      call.errorText =
        typeof call.errorText === "string"
          ? `${call.errorText}\n\n${text}`
          : text;
      continue;
    }
    // Several outputs for one call (a browser's `mclick` opens several pages): joined in order.
    call.output =
      typeof call.output === "string" ? `${call.output}\n\n${text}` : text;
    if (call.state !== "output-error") call.state = "output-available";
  }
}

/** The tool part a tool message answers (and its message), looking back to the user's message. */
function findCall(
  node: SourceNode,
  byId: ReadonlyMap<string, SourceNode>,
  tool: string,
  limit: number,
): { part: SessionMessagePart; message: SessionMessage } | null {
  let fallback: { part: SessionMessagePart; message: SessionMessage } | null =
    null;
  let ancestor = byId.get(node.parentId ?? "");
  // Bounded: a cycle in the mapping is reported by buildTree, not looped on here.
  for (let steps = 0; ancestor && steps < limit; steps++) {
    const message = ancestor.message;
    if (message?.role === "user") break;
    for (const part of [...(message?.parts ?? [])].reverse()) {
      const name = toolNameOf(part);
      if (name === null) continue;
      if (sameTool(name, tool)) return { part, message: message! };
      // Another tool's call is this output's only while it still waits for one.
      if (part.state === "input-available")
        fallback ??= { part, message: message! };
    }
    ancestor = byId.get(ancestor.parentId ?? "");
  }
  return fallback;
}

/** `browser` answers `browser`, `web` answers `web.run`, `file_search` answers `file_search.msearch`. */
function sameTool(call: string, output: string): boolean {
  return call === output || call.split(".")[0] === output.split(".")[0];
}

/** The message a node keeps, or `null` for the nodes the export hides. */
function toMessage(
  id: string,
  source: Record<string, unknown> | null,
  where: string,
  skipped: SkippedContent[],
): SessionMessage | null {
  if (!source) return null;
  const role = asRecord(source.author)?.role;
  const metadata = asRecord(source.metadata);
  if (role !== "user" && role !== "assistant" && role !== "system") return null;
  const content = readContent(asRecord(source.content), where, skipped);
  if (metadata?.is_visually_hidden_from_conversation === true) {
    if (content.text.trim() !== "")
      skipped.push({
        where,
        what: `hidden ${role} message`,
        reason: "ChatGPT hides it from the conversation",
      });
    return null;
  }
  // An assistant message addressed to a tool (recipient "python", "browser") is the call itself:
  // a tool part whose input is the message (its code, or JSON), waiting for the tool's output.
  const recipient =
    typeof source.recipient === "string" ? source.recipient : "all";
  const call =
    role === "assistant" && recipient !== "all" && content.text !== "";
  const parts: SessionMessagePart[] = [
    ...content.reasoning.map((text) => ({ type: "reasoning", text })),
    ...(call
      ? [toolCallPart(recipient, id, callInput(asRecord(source.content)))]
      : textParts(content.text)),
  ];
  const partial = partialReason(source, metadata);
  const citations = citationsOf(metadata, content.text);
  const kept = {
    ...(partial ? { partial: true, partialReason: partial } : {}),
    ...(citations.length > 0 ? { citations } : {}),
    ...(content.images.length > 0 ? { images: content.images } : {}),
  };
  return {
    id,
    role,
    parts,
    ...(Object.keys(kept).length > 0 ? { metadata: kept } : {}),
  };
}

/** The `metadata.images` of a message built here. */
export function imagesOf(message: SessionMessage): ChatGptImage[] {
  const images = (message.metadata as { images?: unknown } | undefined)?.images;
  return Array.isArray(images) ? (images as ChatGptImage[]) : [];
}

/** A citation mark as ChatGPT writes it in the text: `【3:0†source】`, `【12†L5-L9】`. */
const CITATION_MARK = /^【[^【】]*】$/;

/**
 * The sources a message cites: each of `metadata.citations` (its mark read from the text at
 * `start_ix`..`end_ix` when one is there) and each source of `metadata.content_references`
 * (the reference itself, its `items`, `sources` and `fallback_items`), once per mark and URL.
 */
function citationsOf(
  metadata: Record<string, unknown> | null,
  text: string,
): ChatGptCitation[] {
  const citations: ChatGptCitation[] = [];
  const seen = new Set<string>();
  const add = (
    source: Record<string, unknown> | null,
    at: Omit<ChatGptCitation, "url" | "title">,
  ) => {
    const url = typeof source?.url === "string" ? source.url.trim() : "";
    if (url === "") return;
    const key = `${at.mark ?? ""} ${at.start ?? ""} ${url}`;
    if (seen.has(key)) return;
    seen.add(key);
    const title = typeof source?.title === "string" ? source.title.trim() : "";
    citations.push({ url, ...(title !== "" ? { title } : {}), ...at });
  };
  for (const raw of listOf(metadata?.citations)) {
    const citation = asRecord(raw);
    const start = indexOf(citation?.start_ix);
    const end = indexOf(citation?.end_ix);
    const mark =
      start !== undefined && end !== undefined ? text.slice(start, end) : "";
    add(asRecord(citation?.metadata), {
      ...(CITATION_MARK.test(mark) ? { mark } : {}),
      ...(start !== undefined ? { start } : {}),
      ...(end !== undefined ? { end } : {}),
    });
  }
  for (const raw of listOf(metadata?.content_references)) {
    const reference = asRecord(raw);
    if (!reference) continue;
    const mark =
      typeof reference.matched_text === "string" &&
      reference.matched_text.trim() !== ""
        ? reference.matched_text
        : undefined;
    const start = indexOf(reference.start_idx);
    const end = indexOf(reference.end_idx);
    const at = {
      ...(mark !== undefined ? { mark } : {}),
      ...(start !== undefined ? { start } : {}),
      ...(end !== undefined ? { end } : {}),
    };
    for (const source of [
      reference,
      ...listOf(reference.items),
      ...listOf(reference.sources),
      ...listOf(reference.fallback_items),
    ])
      add(asRecord(source), at);
  }
  return citations;
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function indexOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 0
    ? value
    : undefined;
}

/**
 * Why an answer is unfinished: still `in_progress` when exported, or stopped by the user
 * (`finish_details.type: "interrupted"`); `null` for a finished one.
 */
function partialReason(
  source: Record<string, unknown>,
  metadata: Record<string, unknown> | null,
): string | null {
  const finish = asRecord(metadata?.finish_details)?.type;
  if (finish === "interrupted") return "interrupted";
  if (source.status === "in_progress") return "in_progress";
  return null;
}

/** A call's input: the code it runs, or the JSON it sends (parsed). */
function callInput(content: Record<string, unknown> | null): unknown {
  const text =
    typeof content?.text === "string"
      ? content.text
      : Array.isArray(content?.parts)
        ? content.parts.filter((part) => typeof part === "string").join("\n")
        : "";
  return toolInput(text);
}

function nonEmpty(message: SessionMessage | null): SessionMessage | null {
  return message && message.parts.length > 0 ? message : null;
}

/**
 * The readable text (and reasoning) of a ChatGPT content object. What is left out goes to
 * `skipped`: context the user edits in settings, UI notes, audio, image files, unknown types.
 */
function readContent(
  content: Record<string, unknown> | null,
  where: string,
  skipped: SkippedContent[],
): ReadContent {
  const none: ReadContent = { text: "", reasoning: [], images: [] };
  if (!content) return none;
  const images: ChatGptImage[] = [];
  const type = textOf(content.content_type, "text");
  const skip = (what: string, reason: string): ReadContent => {
    skipped.push({ where, what, reason });
    return none;
  };
  const text = (value: string): ReadContent => ({
    text: value,
    reasoning: [],
    images,
  });
  const string = (value: unknown) => (typeof value === "string" ? value : "");
  switch (type) {
    case "user_editable_context":
    case "model_editable_context":
      return skip(
        type,
        "custom instructions and memory of the account, not part of the conversation",
      );
    case "reasoning_recap":
      return skip(type, `a note of the interface (${string(content.content)})`);
    case "code": {
      const body = string(content.text);
      const language =
        typeof content.language === "string" && content.language !== "unknown"
          ? content.language
          : "";
      return text(
        body.trim() === "" ? "" : `\`\`\`${language}\n${body}\n\`\`\``,
      );
    }
    case "execution_output": {
      const body = string(content.text);
      return text(body.trim() === "" ? "" : `\`\`\`\n${body}\n\`\`\``);
    }
    case "tether_browsing_display": {
      const result = string(content.result);
      const summary = string(content.summary);
      return text(
        [result, summary && summary !== result ? `Summary: ${summary}` : ""]
          .filter((line) => line.trim() !== "")
          .join("\n\n"),
      );
    }
    case "tether_quote": {
      const quoted = string(content.text);
      const origin = string(content.title) || string(content.url);
      const url = string(content.url);
      return text(
        [
          origin
            ? `> ${origin}${url && url !== origin ? ` (${url})` : ""}`
            : "",
          ...quoted.split("\n").map((line) => `> ${line}`),
        ]
          .filter((line) => line !== "" && line !== "> ")
          .join("\n"),
      );
    }
    case "sonic_webpage": {
      const heading = [string(content.title), string(content.url)]
        .filter((value) => value !== "")
        .join(" — ");
      return text(
        [heading, string(content.text)].filter((v) => v !== "").join("\n"),
      );
    }
    case "system_error": {
      const name = string(content.name);
      return text(
        `Error${name ? ` (${name})` : ""}: ${string(content.text)}`.trim(),
      );
    }
    case "thoughts": {
      const thoughts = Array.isArray(content.thoughts) ? content.thoughts : [];
      return {
        text: "",
        images,
        reasoning: thoughts
          .map((thought) => {
            const item = asRecord(thought);
            return [string(item?.summary), string(item?.content)]
              .filter((value) => value.trim() !== "")
              .join("\n");
          })
          .filter((value) => value !== ""),
      };
    }
    case "text":
    case "multimodal_text":
      return text(partsText(content.parts, where, skipped, images));
    default:
      if (Array.isArray(content.parts))
        return text(partsText(content.parts, where, skipped, images));
      if (typeof content.text === "string") return text(content.text);
      return skip(type, "a content type this import does not read");
  }
}

function partsText(
  parts: unknown,
  where: string,
  skipped: SkippedContent[],
  images: ChatGptImage[],
): string {
  if (!Array.isArray(parts)) return "";
  return parts
    .map((part) => partText(part, where, skipped, images))
    .filter((text) => text !== "")
    .join("\n");
}

function partText(
  part: unknown,
  where: string,
  skipped: SkippedContent[],
  images: ChatGptImage[],
): string {
  if (typeof part === "string") return part;
  const object = asRecord(part);
  if (!object) return "";
  const type = textOf(object.content_type);
  if (type === "image_asset_pointer") {
    if (typeof object.asset_pointer === "string")
      images.push({
        assetPointer: object.asset_pointer,
        ...numberField("width", object.width),
        ...numberField("height", object.height),
        ...numberField("sizeBytes", object.size_bytes),
      });
    skipped.push({
      where,
      what: "image",
      reason: `the image file (${textOf(object.asset_pointer, "no pointer")}) is not in conversations.json; "[image]" stands in`,
    });
    return IMAGE_PLACEHOLDER;
  }
  if (typeof object.text === "string") return object.text;
  skipped.push({
    where,
    what: type || "part",
    reason:
      type === "audio_asset_pointer" ||
      type === "real_time_user_audio_video_asset_pointer"
        ? "audio and video files are not imported (a transcription, when there is one, is)"
        : "a content part this import does not read",
  });
  return "";
}

function numberField(name: string, value: unknown): Record<string, number> {
  return typeof value === "number" && Number.isFinite(value)
    ? { [name]: value }
    : {};
}

function epochIso(value: unknown): string | undefined {
  return typeof value === "number" && Number.isFinite(value)
    ? new Date(value * 1000).toISOString()
    : undefined;
}
