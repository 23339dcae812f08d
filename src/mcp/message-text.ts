import { isCompactionMessage, type SessionMessage } from "../session/index.js";

/** A message as the tools return it: its text, not its parts. */
export interface MessageView {
  id: string;
  role: string;
  /** `"summary"` for a compaction overlay standing in for the messages it covers. */
  kind: "message" | "summary";
  createdAt: string | null;
  text: string;
  /** Set when the text was cut to fit the answer's token budget. */
  truncated?: true;
}

/** The readable text of a message: text and reasoning parts, tool calls and files as markers. */
export function messageText(message: SessionMessage): string {
  const pieces: string[] = [];
  for (const part of message.parts ?? []) {
    if (typeof part.text === "string" && part.type !== "reasoning")
      pieces.push(part.text);
    else if (part.type === "reasoning") continue;
    else if (typeof part.toolName === "string" || part.type.startsWith("tool-"))
      pieces.push(`[tool ${part.toolName ?? part.type.slice(5)}]`);
    else if (part.type === "file") pieces.push("[file]");
  }
  return pieces.join("\n");
}

export function messageView(message: SessionMessage): MessageView {
  return {
    id: message.id,
    role: message.role,
    kind: isCompactionMessage(message) ? "summary" : "message",
    createdAt: isoTime(message.createdAt),
    text: messageText(message),
  };
}

/** One line: whitespace collapsed, cut to `width` characters. */
export function oneLine(text: string, width = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

export function isoTime(value: unknown): string | null {
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value === "string" && value !== "") return value;
  return null;
}
