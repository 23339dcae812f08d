import { ArborTypeError } from "../errors/index.js";
import type { SessionMessage } from "../contracts/types.js";

/**
 * Checks a message before any write (SPEC §2.1) and returns its JSON text. Throws a `TypeError`
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
      `[arbor] Message "${(message as SessionMessage).id}" cannot be stored as JSON: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** Throws `TypeError` (`INVALID_MESSAGE`) unless `message` has a non-empty string id, a string role and a parts array of objects. */
export function assertValidMessage(
  message: unknown,
): asserts message is SessionMessage {
  const problem = describeProblem(message);
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

/** The searchable text of a message: its `text` parts joined by "\n" (SPEC §5.1). */
export function searchableText(message: SessionMessage): string {
  const texts: string[] = [];
  for (const part of message.parts) {
    if (part.type === "text" && typeof part.text === "string")
      texts.push(part.text);
  }
  return texts.join("\n");
}

// --- Internal helpers ---

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
