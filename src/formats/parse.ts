import { parseArborJsonl } from "./arbor-jsonl.js";
import { parseChatGpt } from "./chatgpt.js";
import { parseClaudeCode } from "./claude-code.js";
import { parseCodex } from "./codex.js";
import { detectFormat } from "./detect.js";
import { invalidImport } from "./import-error.js";
import { parseOpenAiMessages } from "./openai.js";
import { parsePi } from "./pi.js";
import { parseSnapshots } from "./snapshot.js";
import type { TreeOptions } from "./tree.js";
import {
  IMPORT_FORMATS,
  type ImportFormat,
  type ParseOptions,
  type ParsedConversation,
} from "./types.js";
import { parseUiMessages } from "./ui-messages.js";

/**
 * Reads a file into checked conversations, ready for `importConversations()`. The whole input is
 * validated first; a problem throws `ArborError` `INVALID_IMPORT` naming the line or node.
 *
 * @example
 * ```ts
 * const conversations = parseConversations(text, { fileName: "conversations.json" });
 * await importConversations(manager, conversations);
 * ```
 */
export function parseConversations(
  text: string,
  options: ParseOptions = {},
): ParsedConversation[] {
  if (typeof text !== "string")
    throw invalidImport(null, "the input must be text");
  // A byte-order mark is not content (editors on Windows write one); blank lines are not either.
  text = text.replace(/^\uFEFF/, "");
  if (text.trim() === "") throw invalidImport(null, "the file is empty");
  const requested = options.format ?? "auto";
  if (requested !== "auto" && !IMPORT_FORMATS.includes(requested))
    throw invalidImport(
      null,
      `unknown format ${JSON.stringify(requested)}; expected one of ${IMPORT_FORMATS.join(", ")}`,
    );
  const format =
    requested === "auto" ? detectFormat(text, options.fileName) : requested;
  const fileName = options.fileName?.replace(/^.*[\\/]/, "");
  const tree = { lenient: options.lenient === true };
  const conversations = readFormat(format, text, fileName, tree);
  if (fileName)
    for (const conversation of conversations)
      if (conversation.source && conversation.source.fileName === undefined)
        conversation.source.fileName = fileName;
  return conversations;
}

function readFormat(
  format: ImportFormat,
  text: string,
  fileName: string | undefined,
  tree: TreeOptions,
): ParsedConversation[] {
  switch (format) {
    case "snapshot":
      return parseSnapshots(text, fileName);
    case "arbor-jsonl":
      return [parseArborJsonl(text, fileName, tree)];
    case "chatgpt":
      return parseChatGpt(text, tree);
    case "openai":
      return [parseOpenAiMessages(text, fileName)];
    case "ui-messages":
      return [parseUiMessages(text, fileName)];
    case "pi":
      return [parsePi(text, fileName, tree)];
    case "claude-code":
      return parseClaudeCode(text, fileName, tree);
    case "codex":
      return [parseCodex(text, fileName)];
  }
}
