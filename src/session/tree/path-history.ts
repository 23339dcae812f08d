import type { SessionMessage, StoredCompaction } from "../contracts/types.js";
import {
  applyOverlaySpans,
  summaryMessage,
  type OverlaySpan,
} from "./apply-compactions.js";

/** The message stored at a path index; `null`/`undefined` when its row is not a readable message. */
export type MessageAt = (index: number) => SessionMessage | null | undefined;

/**
 * What `getHistory()` returns for a path, written once for every backend: each backend fetches the
 * root → leaf ids and their messages its own fast way, and this applies the overlays and drops
 * unreadable rows. `messageAt` is only called for rows that survive the overlays, so a backend can
 * decode lazily.
 *
 * @param ids the path, root first.
 * @param overlays oldest first, as `getCompactions()` returns them.
 */
export function historyFromPath(
  ids: readonly string[],
  messageAt: MessageAt,
  overlays: readonly StoredCompaction[],
): SessionMessage[] {
  if (overlays.length > 0)
    return messagesFromSpans(applyOverlaySpans(ids, overlays), messageAt);
  // The common case, kept to one plain loop: deep paths are read on every turn.
  const messages: SessionMessage[] = [];
  for (let index = 0; index < ids.length; index++) {
    const message = messageAt(index);
    if (message) messages.push(message);
  }
  return messages;
}

/** Turns overlay spans into messages: summaries are synthesized, unreadable rows skipped. */
export function messagesFromSpans(
  spans: readonly OverlaySpan[],
  messageAt: MessageAt,
): SessionMessage[] {
  const messages: SessionMessage[] = [];
  for (const span of spans) {
    if (span.kind === "summary") {
      messages.push(summaryMessage(span.overlay));
      continue;
    }
    const message = messageAt(span.index);
    if (message) messages.push(message);
  }
  return messages;
}
