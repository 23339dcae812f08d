import { injectedContextKind } from "../formats/injected-context.js";
import { partMarkdown } from "../formats/markdown.js";
import type { SessionMessage } from "../session/index.js";

/** The text parts of a message, joined by blank lines; tools, files and reasoning are named in brackets. */
export function messageText(message: Pick<SessionMessage, "parts">): string {
  return (message.parts ?? [])
    .map((part) => {
      if (part.type === "text")
        return typeof part.text === "string" ? part.text : "";
      // Markers and data parts carry nothing a reader of the transcript needs.
      if (part.type === "step-start" || part.type.startsWith("data-"))
        return "";
      if (part.type === "dynamic-tool")
        return `[tool ${String(part.toolName)}]`;
      if (part.type.startsWith("tool-")) return `[tool ${part.type.slice(5)}]`;
      return `[${part.type}]`;
    })
    .filter((text) => text !== "")
    .join("\n\n");
}

/**
 * A message as `arbor history` prints it: its parts as `export --format markdown` writes them
 * (tool calls with their input and a bounded output, reasoning quoted), and injected context
 * (`metadata.injectedContext`) folded to one line naming its kind and length. `full` shows the
 * context and each tool call's input and output whole.
 */
export function transcriptText(
  message: Pick<SessionMessage, "parts"> & { metadata?: unknown },
  full = false,
): string {
  const text = (message.parts ?? [])
    .map((part) => {
      const shown = partMarkdown(part, full);
      if (shown !== "") return shown;
      // Markers and data parts carry nothing a reader of the transcript needs.
      if (part.type === "step-start" || part.type.startsWith("data-"))
        return "";
      return part.type === "text" || part.type === "reasoning"
        ? ""
        : `[${part.type}]`;
    })
    .filter((piece) => piece !== "")
    .join("\n\n");
  const kind = injectedContextKind(message);
  if (kind === null || full) return text;
  const lines = text === "" ? 0 : text.split("\n").length;
  return `[context: ${kind}, ${lines} line${lines === 1 ? "" : "s"} folded]`;
}

/** Splits text into user-perceived characters (grapheme clusters): an emoji with its ZWJ parts is one. */
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * One line of at most `width` characters: whitespace folded, an ellipsis when cut. Characters
 * are grapheme clusters, so a cut never falls inside an emoji, a ZWJ sequence, a flag or a
 * letter with combining marks (a cut between UTF-16 halves prints U+FFFD).
 */
export function oneLine(text: string, width: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  // Every grapheme is at least one UTF-16 unit: a short string needs no segmenting.
  if (flat.length <= width) return flat;
  const kept: string[] = [];
  for (const { segment } of graphemes.segment(flat)) {
    if (kept.length === width) {
      kept.length = Math.max(width - 1, 0);
      return `${kept.join("").trimEnd()}…`;
    }
    kept.push(segment);
  }
  return flat;
}

/** The number of grapheme clusters in `text`: what a reader counts as characters. */
export function characterCount(text: string): number {
  // ASCII is one character per unit: most cells (ids, dates, counts) skip the segmenter.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  return [...graphemes.segment(text)].length;
}

/** A plain text table: columns padded to their widest cell, the last column left free. */
export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, column) =>
    Math.max(...all.map((row) => characterCount(row[column] ?? ""))),
  );
  return all
    .map((row) =>
      row
        .map((cell, column) =>
          column === row.length - 1
            ? cell
            : cell + " ".repeat(widths[column]! - characterCount(cell)),
        )
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** Writes a value as indented JSON on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
