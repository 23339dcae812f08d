import { invalidImport } from "./import-error.js";

/** One element of a streamed JSON array: its text and the line it starts on. */
export interface StreamedElement {
  text: string;
  line: number;
}

/**
 * The elements of a top-level JSON array, one at a time, from text arriving in chunks (a single
 * top-level object is its only element). Only one element is held at a time, so a file of any
 * size is read with memory bounded by its largest element. Each element's text is left to
 * `JSON.parse`; the scanner only finds where elements begin and end (strings and escapes
 * included), and reports a file that is no array.
 */
export async function* jsonArrayElements(
  chunks: AsyncIterable<string>,
): AsyncGenerator<StreamedElement> {
  let state: ScanState = "start";
  let single = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let line = 1;
  let startLine = 1;
  let pieces: string[] = [];
  let first = true;
  for await (let chunk of chunks) {
    if (first) {
      chunk = chunk.replace(/^\uFEFF/, "");
      first = false;
    }
    let pieceStart = state === "inside" ? 0 : -1;
    for (let index = 0; index < chunk.length; index++) {
      const char = chunk[index]!;
      if (char === "\n") line++;
      if (state === "inside") {
        if (inString) {
          if (escaped) escaped = false;
          else if (char === "\\") escaped = true;
          else if (char === '"') inString = false;
          continue;
        }
        if (char === '"') inString = true;
        else if (char === "{" || char === "[") depth++;
        else if (char === "}" || char === "]") {
          depth--;
          if (depth === 0) {
            pieces.push(chunk.slice(pieceStart, index + 1));
            yield { text: pieces.join(""), line: startLine };
            pieces = [];
            pieceStart = -1;
            state = single ? "done" : "between";
          }
        }
        continue;
      }
      if (/\s/.test(char)) continue;
      if (state === "start") {
        if (char === "[") {
          state = "between";
          continue;
        }
        if (char === "{") {
          single = true;
          state = "inside";
          depth = 1;
          pieceStart = index;
          startLine = line;
          continue;
        }
        throw invalidImport(
          `line ${line}`,
          "expected a JSON array of conversations",
        );
      }
      if (state === "between") {
        if (char === ",") continue;
        if (char === "]") {
          state = "done";
          continue;
        }
        if (char !== "{")
          throw invalidImport(
            `line ${line}`,
            "expected a conversation object in the array",
          );
        state = "inside";
        depth = 1;
        pieceStart = index;
        startLine = line;
        continue;
      }
      throw invalidImport(`line ${line}`, "text after the end of the JSON");
    }
    if (state === "inside") pieces.push(chunk.slice(pieceStart));
  }
  if (finished(state) === null) throw invalidImport(null, "the file is empty");
  if (!finished(state))
    throw invalidImport(
      `line ${line}`,
      "invalid JSON (the file ends inside the array)",
    );
}

/** Where the scanner is: before the array, between elements, inside one, after the end. */
type ScanState = "start" | "between" | "inside" | "done";

/** Whether the scan ended cleanly: `null` when nothing but blanks was read. */
function finished(state: ScanState): boolean | null {
  return state === "start" ? null : state === "done";
}

/** Text chunks of a byte stream, decoded as UTF-8. */
export async function* textChunks(
  stream: ReadableStream<Uint8Array>,
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      if (text !== "") yield text;
    }
    const rest = decoder.decode();
    if (rest !== "") yield rest;
  } finally {
    reader.releaseLock();
  }
}
