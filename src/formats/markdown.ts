import type {
  SessionMessage,
  SessionMessagePart,
} from "../session/contracts/types.js";
import { isCompactionMessage } from "../session/tree/apply-compactions.js";
import { toolNameOf } from "../session/messages/tool-parts.js";
import { textOf } from "../session/errors/text-of.js";

/** How much of a tool's input or output a transcript shows. */
const TOOL_PREVIEW_CHARS = 200;

/** Options of `toMarkdown()`. */
export interface MarkdownOptions {
  /**
   * `"fold"` (default): each tool call is one line with its input and output cut to 200
   * characters, saying how long the whole was. `"full"`: the whole input and output, each in a
   * fenced block under the call's line.
   */
  toolOutput?: "fold" | "full";
}

/**
 * A readable Markdown transcript of one branch (pass `session.getHistory(leafId)`): the name as
 * title, one heading per message with its role (an overlay's summary under its own heading),
 * text as written, reasoning quoted, tool calls on one line each with their input and output
 * folded to 200 characters (the whole of them with `toolOutput: "full"`).
 */
export function toMarkdown(
  info: { name: string },
  messages: readonly SessionMessage[],
  options: MarkdownOptions = {},
): string {
  const full = options.toolOutput === "full";
  const sections = [`# ${info.name}`];
  for (const message of messages) {
    const body = message.parts
      .map((part) => partMarkdown(part, full))
      .filter((text) => text !== "");
    const heading = isCompactionMessage(message)
      ? "Summary of earlier messages"
      : message.role.charAt(0).toUpperCase() + message.role.slice(1);
    sections.push([`## ${heading}`, ...body].join("\n\n"));
  }
  return `${sections.join("\n\n")}\n`;
}

/**
 * One part as the transcript shows it: text as written, reasoning quoted, a tool call as one line
 * with its input and output cut to 200 characters (`full`: each whole, fenced), a file named;
 * `""` for parts a reader does not need (step markers, data parts).
 */
export function partMarkdown(part: SessionMessagePart, full: boolean): string {
  if (part.type === "text" && typeof part.text === "string") return part.text;
  if (part.type === "reasoning") {
    const text =
      typeof part.text === "string" ? part.text : String(part.reasoning ?? "");
    return text
      .split("\n")
      .map((line) => `> ${line}`)
      .join("\n");
  }
  const tool = toolNameOf(part);
  if (tool !== null) {
    const result =
      part.state === "output-error"
        ? part.errorText
        : part.output !== undefined
          ? part.output
          : undefined;
    if (full) {
      const blocks = [`**Tool \`${tool}\`**`, fenced(part.input)];
      if (result !== undefined)
        blocks.push(
          part.state === "output-error" ? "Error:" : "Output:",
          fenced(result),
        );
      return blocks.join("\n\n");
    }
    const output =
      part.state === "output-error"
        ? ` → error: ${preview(part.errorText)}`
        : part.output !== undefined
          ? ` → \`${preview(part.output)}\``
          : "";
    return `**Tool \`${tool}\`** \`${preview(part.input)}\`${output}`;
  }
  if (part.type === "file")
    return `[file: ${textOf(part.filename ?? part.mediaType, "attachment")}]`;
  return "";
}

// --- Internal helpers ---

function asText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}

/** One line: at most 200 characters, and how long the whole is when it was cut. */
function preview(value: unknown): string {
  const whole = asText(value);
  const text = whole.replace(/\s+/g, " ").replace(/`/g, "'");
  return text.length > TOOL_PREVIEW_CHARS
    ? `${text.slice(0, TOOL_PREVIEW_CHARS - 1)}… (${whole.length.toLocaleString("en-US")} characters)`
    : text;
}

/** The whole value in a fence longer than any backtick run inside it. */
function fenced(value: unknown): string {
  const text =
    typeof value === "string" ? value : JSON.stringify(value ?? null, null, 2);
  const longest = Math.max(
    2,
    ...[...text.matchAll(/`+/g)].map((match) => match[0].length),
  );
  const fence = "`".repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}
