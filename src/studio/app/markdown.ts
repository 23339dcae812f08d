/**
 * The Markdown of message text, read into a small tree that the chat view builds as DOM elements
 * (text nodes and a fixed set of tags, never HTML from the message): headings, paragraphs, lists,
 * fenced code, block quotes, rules, GitHub tables and task lists, nested lists, and inline code,
 * strong, emphasis and links. LaTeX (`\(x^2\)`, `\[…\]`, `$…$`, `$$…$$`) is kept verbatim, marks
 * and escapes inside it untouched. Raw HTML in the text stays text. Links keep only http(s) and
 * mailto addresses, so a `javascript:` link is plain text. Anything the reader does not know reads
 * as the paragraph it was written as.
 */

/** An inline run. */
export type Inline =
  | { kind: "text"; text: string }
  | { kind: "code"; text: string }
  /** LaTeX as written, delimiters included. */
  | { kind: "math"; text: string }
  | { kind: "strong" | "em"; children: Inline[] }
  | { kind: "link"; href: string; children: Inline[] };

/** A block. */
export type MarkdownBlock =
  | { kind: "heading"; level: 1 | 2 | 3 | 4 | 5 | 6; children: Inline[] }
  | { kind: "paragraph"; children: Inline[] }
  | { kind: "code"; language: string; text: string }
  | { kind: "quote"; children: MarkdownBlock[] }
  | {
      kind: "list";
      ordered: boolean;
      start: number;
      items: MarkdownBlock[][];
      /** For a task list, each item's box: checked, unchecked, or `null` (no box). */
      tasks?: Array<boolean | null>;
    }
  | {
      kind: "table";
      align: Array<"left" | "center" | "right" | null>;
      head: Inline[][];
      rows: Inline[][][];
    }
  | { kind: "rule" };

/** Where lists, quotes and other nesting stop: deeper text reads as plain paragraphs. */
const MAX_DEPTH = 8;

/** Reads Markdown text into blocks. */
export function parseMarkdown(text: string, depth = 0): MarkdownBlock[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const blocks: MarkdownBlock[] = [];
  let index = 0;
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0)
      blocks.push({
        kind: "paragraph",
        children: parseInline(paragraph.join("\n")),
      });
    paragraph = [];
  };
  while (index < lines.length) {
    const line = lines[index]!;
    const fence = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/.exec(line);
    if (fence) {
      flush();
      const marker = fence[1]!;
      const body: string[] = [];
      index++;
      while (
        index < lines.length &&
        !lines[index]!.trimStart().startsWith(marker)
      )
        body.push(lines[index++]!);
      index++;
      blocks.push({
        kind: "code",
        language: fence[2] ?? "",
        text: body.join("\n"),
      });
      continue;
    }
    if (line.trim() === "") {
      flush();
      index++;
      continue;
    }
    const heading = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      blocks.push({
        kind: "heading",
        level: heading[1]!.length as 1 | 2 | 3 | 4 | 5 | 6,
        children: parseInline(heading[2]!),
      });
      index++;
      continue;
    }
    if (/^ {0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      blocks.push({ kind: "rule" });
      index++;
      continue;
    }
    if (depth < MAX_DEPTH && /^ {0,3}>/.test(line)) {
      flush();
      const body: string[] = [];
      while (index < lines.length && /^ {0,3}>/.test(lines[index]!))
        body.push(lines[index++]!.replace(/^ {0,3}> ?/, ""));
      blocks.push({
        kind: "quote",
        children: parseMarkdown(body.join("\n"), depth + 1),
      });
      continue;
    }
    const delimiter =
      index + 1 < lines.length ? tableDelimiter(lines[index + 1]!) : null;
    if (delimiter && line.includes("|")) {
      const head = cells(line);
      if (head.length === delimiter.length) {
        flush();
        index += 2;
        const rows: Inline[][][] = [];
        while (
          index < lines.length &&
          lines[index]!.includes("|") &&
          lines[index]!.trim() !== ""
        ) {
          const row = cells(lines[index++]!);
          rows.push(
            head.map((_, column) => parseInline(row[column] ?? "", depth)),
          );
        }
        blocks.push({
          kind: "table",
          align: delimiter,
          head: head.map((cell) => parseInline(cell, depth)),
          rows,
        });
        continue;
      }
    }
    const item = LIST_ITEM.exec(line);
    if (depth < MAX_DEPTH && item) {
      flush();
      index = readList(lines, index, depth, blocks);
      continue;
    }
    paragraph.push(line);
    index++;
  }
  flush();
  return blocks;
}

/** Reads inline marks: `code`, **strong**, *em* / _em_, [links](https://…) and <https://…>. */
export function parseInline(text: string, depth = 0): Inline[] {
  const runs: Inline[] = [];
  let plain = "";
  const push = (inline: Inline) => {
    if (plain) runs.push({ kind: "text", text: plain });
    plain = "";
    runs.push(inline);
  };
  let index = 0;
  while (index < text.length) {
    const rest = text.slice(index);
    const code = /^(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/.exec(rest);
    if (code) {
      push({ kind: "code", text: code[2]!.replace(/^ (.*) $/, "$1") });
      index += code[0].length;
      continue;
    }
    // LaTeX as written: its backslashes, underscores and asterisks are not Markdown.
    const math =
      /^\\\([\s\S]+?\\\)/.exec(rest) ??
      /^\\\[[\s\S]+?\\\]/.exec(rest) ??
      /^\$\$[\s\S]+?\$\$/.exec(rest) ??
      (/[\w$]$/.test(plain)
        ? null
        : /^\$(?![\s$])[^$\n]+?(?<!\s)\$(?!\d)/.exec(rest));
    if (math) {
      push({ kind: "math", text: math[0] });
      index += math[0].length;
      continue;
    }
    if (depth < MAX_DEPTH) {
      // Underscores inside a word (snake_case, __dunder__) are not marks.
      const strong =
        /^\*\*(?!\s)([\s\S]+?)(?<!\s)\*\*/.exec(rest) ??
        (/\w$/.test(plain)
          ? null
          : /^__(?!\s)([\s\S]+?)(?<!\s)__(?!\w)/.exec(rest));
      if (strong) {
        push({ kind: "strong", children: parseInline(strong[1]!, depth + 1) });
        index += strong[0].length;
        continue;
      }
      const em = /^(\*|_)(?![\s*_])([\s\S]+?)(?<![\s*_])\1(?![*_\w])/.exec(
        rest,
      );
      if (em && (em[1] === "*" || !/\w$/.test(plain))) {
        push({ kind: "em", children: parseInline(em[2]!, depth + 1) });
        index += em[0].length;
        continue;
      }
      const link =
        /^\[([^\]\n]+)\]\(\s*<?([^\s)>]+)>?(?:\s+"[^"]*")?\s*\)/.exec(rest);
      if (link) {
        const href = safeHref(link[2]!);
        if (href)
          push({
            kind: "link",
            href,
            children: parseInline(link[1]!, depth + 1),
          });
        else plain += link[1]!;
        index += link[0].length;
        continue;
      }
    }
    const auto = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/i.exec(rest);
    if (auto) {
      push({
        kind: "link",
        href: auto[1]!,
        children: [{ kind: "text", text: auto[1]! }],
      });
      index += auto[0].length;
      continue;
    }
    // A backslash escapes the punctuation after it.
    if (rest[0] === "\\" && rest[1] && /[!-/:-@[-`{-~]/.test(rest[1])) {
      plain += rest[1];
      index += 2;
      continue;
    }
    plain += rest[0]!;
    index++;
  }
  if (plain) runs.push({ kind: "text", text: plain });
  return runs;
}

/** The address a link may point to, or `null`: only http(s) and mailto, never script or data. */
export function safeHref(href: string): string | null {
  return /^(https?:\/\/|mailto:)/i.test(href.trim()) ? href.trim() : null;
}

// --- Internal helpers ---

const LIST_ITEM = /^( {0,3})([-*+]|(\d{1,9})[.)])\s+(.*)$/;
const TASK = /^\[([ xX])\]\s+/;

/** The alignments of a table's delimiter row (`| :-- | :-: |`), or `null` for another line. */
function tableDelimiter(
  line: string,
): Array<"left" | "center" | "right" | null> | null {
  if (!/^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/.test(line)) return null;
  if (!line.includes("|")) return null;
  return cells(line).map((cell) =>
    cell.startsWith(":") && cell.endsWith(":")
      ? "center"
      : cell.endsWith(":")
        ? "right"
        : cell.startsWith(":")
          ? "left"
          : null,
  );
}

/** A table row's cells, outer pipes dropped; `\|` is a pipe inside a cell. */
function cells(line: string): string[] {
  const row = line
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "");
  return row
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, "|"));
}

/** Reads a list starting at `start`; returns the index after it. */
function readList(
  lines: string[],
  start: number,
  depth: number,
  blocks: MarkdownBlock[],
): number {
  const first = LIST_ITEM.exec(lines[start]!)!;
  const ordered = first[3] !== undefined;
  const indent = first[1]!.length;
  const items: string[][] = [];
  /** Where the current item's text starts: lines indented as far belong to it. */
  let content = 0;
  let index = start;
  while (index < lines.length) {
    const line = lines[index]!;
    const item = LIST_ITEM.exec(line);
    const lineIndent = /^\s*/.exec(line)![0].replace(/\t/g, "    ").length;
    // An item indented past this list's marker is a nested list: it belongs to the item.
    if (
      item &&
      (item[3] !== undefined) === ordered &&
      lineIndent < indent + 2
    ) {
      items.push([item[4]!]);
      content = line.length - item[4]!.length;
      index++;
      continue;
    }
    // An indented line (or a blank line followed by one) continues the current item.
    if (
      /^\s{2,}\S/.test(line) &&
      lineIndent >= indent + 2 &&
      items.length > 0
    ) {
      items.at(-1)!.push(stripIndent(line, Math.min(lineIndent, content)));
      index++;
      continue;
    }
    if (
      line.trim() === "" &&
      index + 1 < lines.length &&
      (/^\s{2,}\S/.test(lines[index + 1]!) || LIST_ITEM.test(lines[index + 1]!))
    ) {
      const next = LIST_ITEM.exec(lines[index + 1]!);
      if (next && (next[3] !== undefined) !== ordered) break;
      items.at(-1)!.push("");
      index++;
      continue;
    }
    break;
  }
  const tasks = items.map((body) => {
    const box = TASK.exec(body[0]!);
    if (!box) return null;
    body[0] = body[0]!.slice(box[0].length);
    return box[1] !== " ";
  });
  blocks.push({
    kind: "list",
    ordered,
    start: ordered ? Number(first[3]) : 1,
    items: items.map((body) => parseMarkdown(body.join("\n"), depth + 1)),
    ...(tasks.some((task) => task !== null) ? { tasks } : {}),
  });
  return index;
}

/** `line` without up to `columns` columns of leading whitespace (a tab counts four). */
function stripIndent(line: string, columns: number): string {
  let column = 0;
  let at = 0;
  while (at < line.length && column < columns && /[ \t]/.test(line[at]!)) {
    column += line[at] === "\t" ? 4 : 1;
    at++;
  }
  return line.slice(at);
}
