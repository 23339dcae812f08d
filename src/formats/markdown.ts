import type {
  SessionMessage,
  SessionMessagePart,
} from "../session/contracts/types.js";
import { isCompactionMessage } from "../session/core/apply-compactions.js";
import { toolNameOf } from "../session/core/tool-parts.js";

/** How much of a tool's input or output a transcript shows. */
const TOOL_PREVIEW_CHARS = 200;

/**
 * A readable Markdown transcript of one branch (pass `session.getHistory(leafId)`): the name as
 * title, one heading per message with its role (an overlay's summary under its own heading), text as written, reasoning quoted, tool calls
 * on one line each with their input and output cut to 200 characters.
 */
export function toMarkdown(
  info: { name: string },
  messages: readonly SessionMessage[],
): string {
  const sections = [`# ${info.name}`];
  for (const message of messages) {
    const body = message.parts.map(partMarkdown).filter((text) => text !== "");
    const heading = isCompactionMessage(message)
      ? "Summary of earlier messages"
      : message.role.charAt(0).toUpperCase() + message.role.slice(1);
    sections.push([`## ${heading}`, ...body].join("\n\n"));
  }
  return `${sections.join("\n\n")}\n`;
}

// --- Internal helpers ---

function partMarkdown(part: SessionMessagePart): string {
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
    const output =
      part.state === "output-error"
        ? ` → error: ${preview(part.errorText)}`
        : part.output !== undefined
          ? ` → \`${preview(part.output)}\``
          : "";
    return `**Tool \`${tool}\`** \`${preview(part.input)}\`${output}`;
  }
  if (part.type === "file")
    return `[file: ${String(part.filename ?? part.mediaType ?? "attachment")}]`;
  return "";
}

function preview(value: unknown): string {
  const text = (
    typeof value === "string" ? value : JSON.stringify(value ?? null)
  )
    .replace(/\s+/g, " ")
    .replace(/`/g, "'");
  return text.length > TOOL_PREVIEW_CHARS
    ? `${text.slice(0, TOOL_PREVIEW_CHARS - 1)}…`
    : text;
}
