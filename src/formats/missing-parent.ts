import type { SessionMessage } from "../session/contracts/types.js";
import { readMark, withMark } from "./metadata-mark.js";

/**
 * A trimmed file (a fragment whose first entries are cut off) names parents it does not hold.
 * Imported with `lenient`, such a message is stored as a root and marked with
 * `metadata.missingParentId = "<the id the file named>"`, so a later import of the whole
 * conversation knows it is a root only for want of its parent, and moves it under that parent
 * when the parent arrives (docs/formats.md#re-imports). The mark stays: it records that the
 * message once arrived without its parent.
 */
export const MISSING_PARENT_METADATA = "missingParentId";

/** The parent the message's file named but did not hold, or `null` for a message not marked. */
export function missingParentOf(message: {
  metadata?: unknown;
  [key: string]: unknown;
}): string | null {
  return readMark(message, MISSING_PARENT_METADATA);
}

/** The message with the mark added (its other metadata kept). */
export function markMissingParent<T extends SessionMessage>(
  message: T,
  parentId: string,
): T {
  return withMark(message, MISSING_PARENT_METADATA, parentId);
}
