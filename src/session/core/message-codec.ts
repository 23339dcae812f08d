import { ArborTypeError } from "../errors/index.js";
import type { SessionMessage, SessionMessagePart } from "../contracts/types.js";
import { isToolPart, toolNameOf } from "./tool-parts.js";
import { utf8Length } from "./utf8.js";
import { unstorableReason } from "./storable-text.js";

/**
 * Checks a message before any write (docs/behavior/messages-and-tree.md) and returns its JSON text. Throws a `TypeError`
 * with code `INVALID_MESSAGE` and writes nothing when the message is malformed or not
 * representable as JSON (BigInt, cycles).
 */
export function encodeMessage(message: unknown): string {
  assertValidMessage(message);
  try {
    return JSON.stringify(message);
  } catch (error) {
    throw new ArborTypeError(
      "INVALID_MESSAGE",
      `[arbor] Message "${message.id}" cannot be stored as JSON: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** Throws `TypeError` (`INVALID_MESSAGE`) unless `message` has a non-empty string id, a string role and a parts array of objects. */
export function assertValidMessage(
  message: unknown,
): asserts message is SessionMessage {
  const problem = describeProblem(message) ?? describeUnstorableId(message);
  if (problem)
    throw new ArborTypeError(
      "INVALID_MESSAGE",
      `[arbor] Invalid message: ${problem}`,
    );
}

/** Parses a stored row; `null` when it is not a valid message (such rows are skipped on read). */
export function decodeMessage(json: string): SessionMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  return reviveMessage(value);
}

/** A parsed stored value as a message (`createdAt` revived to a Date), or `null` if it is not one. */
export function reviveMessage(value: unknown): SessionMessage | null {
  if (describeProblem(value)) return null;
  const message = value as SessionMessage;
  const createdAt = message.createdAt as unknown;
  if (typeof createdAt === "string") {
    const date = new Date(createdAt);
    if (!Number.isNaN(date.getTime())) message.createdAt = date;
  }
  return message;
}

/**
 * UTF-8 bytes of each tool call's input that are searchable (docs/behavior/search.md#tool-calls):
 * enough for a shell command, a file path or a query; a large input (a whole file written) is
 * cut there, so the index grows by at most this much per call.
 */
export const MAX_TOOL_INPUT_BYTES = 2048;

/**
 * The text a message is searched by, and the `content` of its hits: its text parts joined by
 * newlines, then one line per tool call, the tool's name and the string, number and boolean
 * values of its input (first `MAX_TOOL_INPUT_BYTES`), so "create-next-app" finds the shell call
 * that ran it. Reasoning, tool outputs and files are not searchable.
 */
export function searchableText(message: SessionMessage): string {
  const texts: string[] = [];
  const calls: string[] = [];
  for (const part of message.parts) {
    if (part.type === "text" && typeof part.text === "string")
      texts.push(part.text);
    else if (isToolPart(part)) {
      const line = toolCallText(part);
      if (line.length > 0) calls.push(line);
    }
  }
  return calls.length === 0
    ? texts.join("\n")
    : [...texts, ...calls].join("\n");
}

// --- Internal helpers ---

/** `<tool name> <input values>`, the values cut at `MAX_TOOL_INPUT_BYTES` on a character boundary. */
function toolCallText(part: SessionMessagePart): string {
  const values: string[] = [];
  let bytes = 0;
  const visit = (value: unknown, depth: number): void => {
    if (bytes >= MAX_TOOL_INPUT_BYTES || depth > 16) return;
    if (
      typeof value === "string" ||
      typeof value === "number" ||
      typeof value === "boolean"
    ) {
      const text = String(value);
      if (text.length === 0) return;
      values.push(text);
      bytes += utf8Length(text) + 1;
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
    } else if (typeof value === "object" && value !== null) {
      for (const item of Object.values(value)) visit(item, depth + 1);
    }
  };
  visit(part.input, 0);
  const input = cutToBytes(values.join(" "), MAX_TOOL_INPUT_BYTES);
  const name = toolNameOf(part) ?? "";
  return name.length > 0 && input.length > 0
    ? `${name} ${input}`
    : name + input;
}

/** The longest prefix of `text` of at most `max` UTF-8 bytes that ends on a character boundary. */
function cutToBytes(text: string, max: number): string {
  if (text.length * 3 <= max || utf8Length(text) <= max) return text;
  let bytes = 0;
  let end = 0;
  for (const character of text) {
    const size = utf8Length(character);
    if (bytes + size > max) break;
    bytes += size;
    end += character.length;
  }
  return text.slice(0, end);
}

/** Checked on writes only, so rows stored before stay readable. */
function describeUnstorableId(message: unknown): string | null {
  const id = (message as SessionMessage).id;
  const reason = unstorableReason(id);
  return reason && `\`id\` ${JSON.stringify(id)} ${reason}`;
}

function describeProblem(message: unknown): string | null {
  if (
    typeof message !== "object" ||
    message === null ||
    Array.isArray(message)
  ) {
    return "expected an object with `id`, `role` and `parts`";
  }
  const { id, role, parts } = message as Record<string, unknown>;
  if (typeof id !== "string" || id.length === 0)
    return "`id` must be a non-empty string";
  if (typeof role !== "string")
    return `\`role\` of message "${id}" must be a string`;
  if (!Array.isArray(parts))
    return `\`parts\` of message "${id}" must be an array`;
  if (
    !parts.every(
      (part) =>
        typeof part === "object" && part !== null && !Array.isArray(part),
    )
  ) {
    return `every part of message "${id}" must be an object`;
  }
  return null;
}
