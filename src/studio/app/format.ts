/** Display helpers: dates, numbers, message text. */
import type { Message } from "./api-types.js";

const dateFormat = new Intl.DateTimeFormat(undefined, {
  dateStyle: "medium",
  timeStyle: "short",
});

/** A short local date and time, or "—". */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateFormat.format(date);
}

/** A count with thousands separators. */
export function formatNumber(value: number | null | undefined): string {
  return typeof value === "number" ? value.toLocaleString() : "—";
}

/**
 * Tokens in / out, or "unknown" when nothing was ever recorded: imported conversations carry no
 * usage, and "0 / 0" would claim the conversation cost nothing.
 */
export function tokenUsage(info: {
  input_tokens: number;
  output_tokens: number;
}): string {
  if (!info.input_tokens && !info.output_tokens) return "unknown";
  return `${formatNumber(info.input_tokens)} / ${formatNumber(info.output_tokens)}`;
}

/** The text parts of a message joined (what search and previews see). */
export function messageText(message: Message): string {
  return message.parts
    .map((part) => (typeof part.text === "string" ? part.text : ""))
    .filter((text) => text.length > 0)
    .join("\n");
}

/** One run of message text: plain, `**strong**` or `` `code` ``. */
export interface TextRun {
  kind: "text" | "strong" | "code";
  text: string;
}

/** `**strong**` (not opened or closed by a space) or `` `code` ``, within one line. */
const INLINE_MARK = /\*\*(?!\s)([^*\n]+?)(?<!\s)\*\*|`([^`\n]+)`/g;

/**
 * Splits message text into plain, strong and code runs: the two Markdown marks chat models use
 * most, shown as marks rather than as asterisks and backticks. Everything else stays as written.
 */
export function inlineRuns(text: string): TextRun[] {
  const runs: TextRun[] = [];
  let last = 0;
  for (const match of text.matchAll(INLINE_MARK)) {
    if (match.index > last)
      runs.push({ kind: "text", text: text.slice(last, match.index) });
    runs.push(
      match[1] !== undefined
        ? { kind: "strong", text: match[1] }
        : { kind: "code", text: match[2]! },
    );
    last = match.index + match[0].length;
  }
  if (last < text.length) runs.push({ kind: "text", text: text.slice(last) });
  return runs;
}

/** The text with its `**bold**` and `` `code` `` marks removed (labels, previews). */
export function plainText(text: string): string {
  return inlineRuns(text)
    .map((run) => run.text)
    .join("");
}

/** Pretty JSON for tool inputs and outputs; strings stay as they are. */
export function pretty(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
