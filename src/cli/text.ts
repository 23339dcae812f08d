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

/** One line of at most `width` characters: whitespace folded, an ellipsis when cut. */
export function oneLine(text: string, width: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > width ? `${flat.slice(0, width - 1).trimEnd()}…` : flat;
}

/** A plain text table: columns padded to their widest cell, the last column left free. */
export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, column) =>
    Math.max(...all.map((row) => (row[column] ?? "").length)),
  );
  return all
    .map((row) =>
      row
        .map((cell, column) =>
          column === row.length - 1 ? cell : cell.padEnd(widths[column]!),
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
