import { asRecord, invalidImport } from "./import-error.js";

/** One parsed JSONL line with its 1-based number. */
export interface JsonlLine {
  line: number;
  value: Record<string, unknown>;
}

/** Parses a whole JSON document; a syntax error names its line. */
export function parseJsonDocument(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    // V8 names a position for most errors; an early end of input is on the last line.
    const line = position
      ? text.slice(0, Number(position[1])).split("\n").length
      : /end of JSON input/.test(message)
        ? text.trimEnd().split("\n").length
        : null;
    throw invalidImport(
      line === null ? null : `line ${line}`,
      `invalid JSON (${message})`,
      error,
    );
  }
}

/** Parses JSON Lines: every non-blank line must be a JSON object. */
export function parseJsonl(text: string): JsonlLine[] {
  const lines: JsonlLine[] = [];
  text.split("\n").forEach((raw, index) => {
    const source = raw.trim();
    if (source === "") return;
    const line = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (error) {
      // A pretty-printed JSON file breaks on its first line: name what it is, not the syntax error.
      const document = lines.length === 0 ? jsonDocumentKind(text) : null;
      if (document)
        throw invalidImport(
          null,
          `the file is one JSON ${document} over several lines, not JSON Lines (one JSON object per line), which this format reads; --format auto names the format of a file`,
          error,
        );
      throw invalidImport(
        `line ${line}`,
        `invalid JSON (${(error as Error).message})`,
        error,
      );
    }
    const record = asRecord(value);
    if (!record)
      throw invalidImport(
        `line ${line}`,
        `expected a JSON object, got ${Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`}`,
      );
    lines.push({ line, value: record });
  });
  if (lines.length === 0) throw invalidImport(null, "the file is empty");
  return lines;
}

/** What the whole text is as one JSON document, or `null` when it is not one. */
function jsonDocumentKind(text: string): string | null {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? "array" : typeof value;
  } catch {
    return null;
  }
}

/** An ISO time from an ISO string or epoch milliseconds, else `fallback`. */
export function isoTime(value: unknown, fallback: string): string {
  if (typeof value === "number" && Number.isFinite(value))
    return new Date(value).toISOString();
  if (typeof value === "string" && !Number.isNaN(Date.parse(value)))
    return new Date(value).toISOString();
  return fallback;
}
