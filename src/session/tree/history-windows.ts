import type { PathEntry } from "../contracts/provider.js";
import type { StoredCompaction } from "../contracts/types.js";
import {
  applyOverlaySpans,
  summaryMessage,
  type OverlaySpan,
} from "./apply-compactions.js";
import { utf8Length } from "../encoding/utf8.js";

/** How a streamed history is cut into windows (docs/behavior/history.md). */
export interface WindowBounds {
  /** Most messages per window (a positive integer). */
  batchSize: number;
  /** Most UTF-8 bytes of stored JSON per window; a larger message comes alone. */
  maxBatchBytes: number;
  /** Windows and the spans inside them run leaf → root instead of root → leaf. */
  newestFirst: boolean;
}

/** One window of a streamed history: its spans in output order, and the stored ids to fetch. */
export interface HistoryWindow {
  spans: OverlaySpan[];
  /** The ids of the window's stored rows (summaries need no read), in output order. */
  rowIds: string[];
}

/**
 * Cuts a path into the windows a streamed history reads one at a time, written once for every
 * backend. Overlays are applied to the whole path first (the same `applyOverlaySpans` step as
 * `getHistory()`), so an overlay whose range crosses a window edge is never cut: it becomes one
 * summary span, which is one message of whichever window it falls in. Each window then holds at
 * most `batchSize` spans and at most `maxBatchBytes`, except that a single span larger than that
 * comes alone.
 *
 * Only ids and sizes are held for the whole path; content is read window by window by the caller.
 *
 * @param path root → leaf ids with their stored sizes.
 * @param overlays oldest first, as `getCompactions()` returns them.
 */
export function* historyWindows(
  path: readonly PathEntry[],
  overlays: readonly StoredCompaction[],
  bounds: WindowBounds,
): Generator<HistoryWindow> {
  const spans = applyOverlaySpans(
    path.map((entry) => entry.id),
    overlays,
  );
  if (bounds.newestFirst) spans.reverse();
  let window: HistoryWindow = { spans: [], rowIds: [] };
  let windowBytes = 0;
  for (const span of spans) {
    const bytes =
      span.kind === "row"
        ? path[span.index]!.bytes
        : utf8Length(JSON.stringify(summaryMessage(span.overlay)));
    const full =
      window.spans.length >= bounds.batchSize ||
      (window.spans.length > 0 && windowBytes + bytes > bounds.maxBatchBytes);
    if (full) {
      yield window;
      window = { spans: [], rowIds: [] };
      windowBytes = 0;
    }
    window.spans.push(span);
    if (span.kind === "row") window.rowIds.push(path[span.index]!.id);
    windowBytes += bytes;
  }
  if (window.spans.length > 0) yield window;
}
