import { ArborTypeError } from "../errors/index.js";
import type { SessionMessage } from "../contracts/types.js";
import { isToolPart, toolNameOf } from "./tool-parts.js";
import { utf8Length } from "../encoding/utf8.js";
import { unstorableReason } from "./storable-text.js";

/**
 * Checks a message before any write (docs/behavior/messages-and-tree.md) and returns its JSON text. Throws a `TypeError`
 * with code `INVALID_MESSAGE` and writes nothing when the message is malformed or not
 * representable as JSON (BigInt, cycles).
 */
export function encodeMessage(message: unknown): string {
  assertValidMessage(message);
  return stringifyMessage(message);
}

/**
 * `encodeMessage` for a message the Session itself writes (append, appendAll, update, import):
 * the same check, and a role the model may be sent (`assertMessageRole`). A provider written to
 * directly stores what it is given (`encodeMessage`), so rows of other roles written by older
 * versions or by other tools stay readable and restorable.
 */
export function encodeWrite(message: unknown): string {
  const json = encodeMessage(message);
  assertMessageRole(message as SessionMessage);
  return json;
}

/** The roles of an AI SDK `UIMessage`. */
const MESSAGE_ROLES: ReadonlySet<string> = new Set([
  "system",
  "user",
  "assistant",
]);

/**
 * Only the roles of an AI SDK `UIMessage` are written: a `tool` or `data` message would be
 * replayed to the model as something it never sent. Checked on writes only, so rows stored by
 * older versions stay readable.
 */
export function assertMessageRole(message: SessionMessage): void {
  if (!MESSAGE_ROLES.has(message.role)) {
    throw new ArborTypeError(
      "INVALID_MESSAGE",
      `[arbor] Invalid message: \`role\` of message "${message.id}" must be "system", "user" or "assistant" (got ${JSON.stringify(message.role)})`,
    );
  }
}

/**
 * The JSON text of a message already checked (`assertValidMessage`), or one made from such a
 * message: `encodeMessage` without the check, so a write checks each message once.
 */
export function stringifyMessage(message: SessionMessage): string {
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

/**
 * Throws `TypeError` (`INVALID_MESSAGE`) unless `message` has a non-empty string id, a string
 * role, a parts array of objects, and a string `text` in every text part.
 */
export function assertValidMessage(
  message: unknown,
): asserts message is SessionMessage {
  const problem =
    describeProblem(message) ??
    describeUnstorableId(message) ??
    describeTextParts(message as SessionMessage);
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
 * UTF-8 bytes of each tool call's output (or error text) that are searchable when a store indexes
 * tool outputs (docs/behavior/search.md#tool-outputs): the head of a command's output or a file
 * read, where the words an agent searches for usually are; the index grows by at most this much
 * per call.
 */
export const MAX_TOOL_OUTPUT_BYTES = 4096;

/**
 * The text a message is searched by, and the `content` of its hits: its text parts joined by
 * newlines, then one line per tool call, the tool's name and the string, number and boolean
 * values of its input (first `MAX_TOOL_INPUT_BYTES`), so "create-next-app" finds the shell call
 * that ran it. With `toolOutputs` (a store that indexes them) each call's line is followed by the
 * values of its output or its error text (first `MAX_TOOL_OUTPUT_BYTES`): that is the indexed
 * text, while hits keep the text without outputs as `content`, so results stay compact.
 * Reasoning and files are never searchable.
 */
export function searchableText(
  message: SessionMessage,
  toolOutputs = false,
): string {
  const texts: string[] = [];
  const calls: string[] = [];
  for (const part of message.parts) {
    if (part.type === "text" && typeof part.text === "string")
      texts.push(part.text);
    else if (isToolPart(part)) {
      const name = toolNameOf(part) ?? "";
      const input = valuesText(part.input, MAX_TOOL_INPUT_BYTES);
      const line =
        name.length > 0 && input.length > 0 ? `${name} ${input}` : name + input;
      if (line.length > 0) calls.push(line);
      if (toolOutputs) {
        const output = valuesText(
          part.output ?? part.result ?? part.errorText,
          MAX_TOOL_OUTPUT_BYTES,
        );
        if (output.length > 0) calls.push(output);
      }
    }
  }
  return calls.length === 0
    ? texts.join("\n")
    : [...texts, ...calls].join("\n");
}

// --- Internal helpers ---

/** The string, number and boolean values in `value`, in order, cut at `max` UTF-8 bytes on a character boundary. */
function valuesText(value: unknown, max: number): string {
  const values: string[] = [];
  let bytes = 0;
  const visit = (item: unknown, depth: number): void => {
    if (bytes >= max || depth > 16) return;
    if (
      typeof item === "string" ||
      typeof item === "number" ||
      typeof item === "boolean"
    ) {
      const text = String(item);
      if (text.length === 0) return;
      values.push(text);
      bytes += utf8Length(text) + 1;
    } else if (Array.isArray(item)) {
      for (const each of item) visit(each, depth + 1);
    } else if (typeof item === "object" && item !== null) {
      for (const each of Object.values(item)) visit(each, depth + 1);
    }
  };
  visit(value, 0);
  return cutToBytes(values.join(" "), max);
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

/**
 * A text part's `text` is what the model is sent, searched and previewed: a number, `null` or an
 * object there would be stored and read back as something no reader expects. Checked on writes
 * only, so rows stored before stay readable.
 */
function describeTextParts(message: SessionMessage): string | null {
  let index = 0;
  for (const part of message.parts as ReadonlyArray<Record<string, unknown>>) {
    const text = part.text;
    if (part.type === "text" && typeof text !== "string") {
      const got =
        text === null ? "null" : Array.isArray(text) ? "an array" : typeof text;
      return `\`text\` of text part ${index} of message "${message.id}" must be a string (got ${got})`;
    }
    index++;
  }
  return null;
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
  // `for…of`, not `every()`: `every()` skips the holes of a sparse array (`[, ,]`), which would
  // let `undefined` parts through to the writers; the iterator visits them.
  for (const part of parts as unknown[])
    if (typeof part !== "object" || part === null || Array.isArray(part))
      return `every part of message "${id}" must be an object`;
  return null;
}
