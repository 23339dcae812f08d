/**
 * Import and export of conversations: Arbor's snapshot JSON and tree JSONL (both lossless),
 * ChatGPT exports, OpenAI and AI SDK message arrays, Pi, Claude Code and Codex session files, and
 * Markdown transcripts. Pure parsers and writers with no I/O: loads in workerd.
 *
 * @example
 * ```ts
 * import { importConversations, parseConversations, toArborJsonl } from "arbor-memory/formats";
 *
 * const conversations = parseConversations(text, { fileName: "conversations.json" });
 * const sessions = await importConversations(manager, conversations);
 * const jsonl = toArborJsonl(await manager.exportSession(sessions[0].id));
 * ```
 *
 * @module arbor-memory/formats
 */
export {
  IMPORT_FORMATS,
  type ImportFormat,
  type ParseOptions,
  type ParsedConversation,
  type ConversationTimes,
  type ImportSource,
  type ImportWarning,
  type SkippedContent,
} from "./types.js";
export { detectFormat } from "./detect.js";
export { parseConversations } from "./parse.js";
export type { TreeOptions } from "./tree.js";
export {
  ARBOR_JSONL_FORMAT,
  parseArborJsonl,
  toArborJsonl,
} from "./arbor-jsonl.js";
export { parseSnapshots, toSnapshotJson } from "./snapshot.js";
export { parseChatGpt, streamChatGpt } from "./chatgpt.js";
export { parseChatGptZip, streamChatGptZip } from "./chatgpt-zip.js";
export {
  bytesSource,
  isZip,
  zipEntries,
  zipEntryStream,
  type ByteSource,
  type ZipEntry,
} from "./zip.js";
export {
  jsonArrayElements,
  textChunks,
  type StreamedElement,
} from "./json-stream.js";
export { parseOpenAiMessages } from "./openai.js";
export { parseUiMessages } from "./ui-messages.js";
export { parsePi } from "./pi.js";
export { parseClaudeCode } from "./claude-code.js";
export { parseCodex } from "./codex.js";
export { toMarkdown, type MarkdownOptions } from "./markdown.js";
export {
  INJECTED_CONTEXT_METADATA,
  injectedContextKind,
  isInjectedContext,
  type InjectedContextKind,
} from "./injected-context.js";
export {
  importConversations,
  importConversationsWithReport,
  type ExistingConversation,
  type ImportConversationsOptions,
  type ImportReport,
} from "./import.js";
