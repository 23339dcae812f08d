// Minimal front matter support for Markdown skills: a leading `---` block, of which only the
// `description:` key is read. Deliberately not a YAML parser (no dependency, no surprises):
// plain, single-quoted, double-quoted and block (`>` / `|`) scalars are understood.

const FRONT_MATTER =
  /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;
const DESCRIPTION_LINE = /^description[ \t]*:[ \t]*(.*)$/;
const BLOCK_SCALAR = /^[|>][+-]?[1-9]?$/;
const ATX_HEADING = /^ {0,3}#{1,6}[ \t]+(.+)$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export interface MarkdownDocument {
  /** The raw text between the `---` lines, or `null` when the file has no front matter. */
  frontMatter: string | null;
  /** The document without its front matter (and without the blank line that follows it). */
  body: string;
}

/** Splits a leading front matter block off a Markdown document. */
export function splitFrontMatter(text: string): MarkdownDocument {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const match = FRONT_MATTER.exec(source);
  if (!match) return { frontMatter: null, body: source };
  const rest = source.slice(match[0].length);
  return {
    frontMatter: match[1] ?? "",
    body: rest.replace(/^\r?\n/, ""),
  };
}

/** Front matter for `description`, written as a JSON string (JSON strings are valid YAML). */
export function renderFrontMatter(description: string): string {
  return `---\ndescription: ${JSON.stringify(description)}\n---\n\n`;
}

/**
 * The one-line description of a skill: front matter `description:`, else the first ATX heading
 * (`# Title`) outside code fences, else `undefined`. Whitespace runs collapse to one space, so
 * a description can never add lines to the prompt.
 */
export function describeMarkdown(text: string): string | undefined {
  const { frontMatter, body } = splitFrontMatter(text);
  return (
    oneLine(frontMatter === null ? undefined : readDescription(frontMatter)) ??
    oneLine(firstHeading(body))
  );
}

// --- Internal helpers ---

/** Whitespace runs collapsed to one space; a blank text counts as none. */
function oneLine(text: string | undefined): string | undefined {
  const line = text?.replace(/\s+/g, " ").trim();
  return line ? line : undefined;
}

function readDescription(frontMatter: string): string | undefined {
  const lines = frontMatter.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const match = DESCRIPTION_LINE.exec(lines[index] ?? "");
    if (!match) continue;
    const value = (match[1] ?? "").trim();
    const continuation = indentedLinesAfter(lines, index);
    if (value.startsWith('"')) return doubleQuoted(value);
    if (value.startsWith("'")) return singleQuoted(value);
    if (BLOCK_SCALAR.test(value)) return continuation.join(" ");
    // A plain scalar ends at a comment and may continue on indented lines.
    return [value.replace(/(^|[ \t])#.*$/, ""), ...continuation].join(" ");
  }
  return undefined;
}

function indentedLinesAfter(lines: string[], index: number): string[] {
  const result: string[] = [];
  for (const line of lines.slice(index + 1)) {
    if (line.trim() !== "" && !/^[ \t]/.test(line)) break;
    result.push(line.trim());
  }
  return result;
}

function doubleQuoted(value: string): string {
  const inner = /^"((?:[^"\\]|\\.)*)"/.exec(value)?.[1];
  if (inner === undefined) return value.slice(1);
  try {
    return JSON.parse(`"${inner}"`) as string;
  } catch {
    return inner;
  }
}

function singleQuoted(value: string): string {
  const inner = /^'((?:[^']|'')*)'/.exec(value)?.[1];
  return inner === undefined ? value.slice(1) : inner.replace(/''/g, "'");
}

function firstHeading(body: string): string | undefined {
  let fence: string | null = null;
  for (const line of body.split(/\r?\n/)) {
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1] ?? "";
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length)
        fence = null;
      continue;
    }
    if (fence !== null) continue;
    const heading = ATX_HEADING.exec(line)?.[1];
    // A closing run of `#` is decoration, not text.
    const title = heading?.replace(/[ \t]+#+[ \t]*$/, "").trim();
    if (title && !/^#+$/.test(title)) return title;
  }
  return undefined;
}
