import { ArborError } from "../errors/index.js";
import { utf8Length } from "../encoding/utf8.js";
import { assertText } from "./session-rows.js";

/**
 * Limits of a session's metadata (docs/behavior/manager.md#metadata). Metadata is a handful of
 * labels per session (a plan, a user id, a source), read with every listed row; a session with
 * tens of thousands of keys made every list page carry them and its create run for minutes. A
 * write over a limit is refused before anything is written (`METADATA_TOO_LARGE`, HTTP 413).
 */
export const METADATA_LIMITS = {
  /** Entries (keys) one session holds. */
  maxEntries: 100,
  /** Characters (UTF-16 code units, as `string.length` counts) of one key. */
  maxKeyLength: 200,
  /** Characters of one value. */
  maxValueLength: 10_000,
  /** UTF-8 bytes of every key and value of the session together. */
  maxTotalBytes: 64 * 1024,
} as const;

/**
 * Checks a whole metadata object (a create, an import): strings a database keeps exactly, then
 * the limits. `what` names the caller in the message.
 */
export function assertMetadata(
  metadata: Readonly<Record<string, unknown>>,
  what: string,
): asserts metadata is Record<string, string> {
  const entries = Object.entries(metadata);
  // The count first: tens of thousands of keys are refused without looking at each.
  if (entries.length > METADATA_LIMITS.maxEntries)
    tooLarge(
      `${what}: ${entries.length} metadata entries, over the limit of ${METADATA_LIMITS.maxEntries} per session`,
    );
  for (const [key, value] of entries) {
    assertText(key, `${what} needs every \`metadata\` key`);
    assertText(value, `${what} needs every \`metadata\` value`);
  }
  assertSizes(entries as Array<[string, string]>, what);
}

/**
 * Checks one entry about to be set among the session's `current` entries: its own sizes, and the
 * session's count and total once it is set.
 */
export function assertMetadataEntry(
  current: Readonly<Record<string, string>>,
  key: string,
  value: string,
): void {
  const next = { ...current, [key]: value };
  const entries = Object.entries(next);
  if (!(key in current) && entries.length > METADATA_LIMITS.maxEntries)
    tooLarge(
      `setMetadata(): the session already has ${entries.length - 1} metadata entries, the limit is ${METADATA_LIMITS.maxEntries}`,
    );
  assertSizes(entries, "setMetadata()");
}

// --- Internal helpers ---

function assertSizes(entries: Array<[string, string]>, what: string): void {
  let total = 0;
  for (const [key, value] of entries) {
    if (key.length > METADATA_LIMITS.maxKeyLength)
      tooLarge(
        `${what}: metadata key ${JSON.stringify(key.slice(0, 40))}… is ${key.length} characters, over the limit of ${METADATA_LIMITS.maxKeyLength}`,
      );
    if (value.length > METADATA_LIMITS.maxValueLength)
      tooLarge(
        `${what}: the value of metadata key ${JSON.stringify(key.slice(0, 40))} is ${value.length} characters, over the limit of ${METADATA_LIMITS.maxValueLength}`,
      );
    total += utf8Length(key) + utf8Length(value);
  }
  if (total > METADATA_LIMITS.maxTotalBytes)
    tooLarge(
      `${what}: metadata of ${total} bytes (keys and values, UTF-8), over the limit of ${METADATA_LIMITS.maxTotalBytes} bytes per session`,
    );
}

function tooLarge(message: string): never {
  throw new ArborError("METADATA_TOO_LARGE", message);
}
