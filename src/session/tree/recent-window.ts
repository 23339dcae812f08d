import {
  applyOverlaySpans,
  summaryMessage,
  type OverlaySpan,
} from "./apply-compactions.js";
import { utf8Length } from "../encoding/utf8.js";
import type { StoredCompaction } from "../contracts/types.js";

/** A path row known by id and stored size only. */
export interface SizedRow {
  id: string;
  bytes: number;
}

export interface RecentWindow {
  /** The chosen spans, oldest first: stored rows (to be loaded) and summaries. */
  spans: OverlaySpan[];
  truncated: boolean;
  totalContentBytes: number;
}

/**
 * Chooses the byte-budgeted suffix of a path (docs/behavior/history.md) from row sizes alone, after applying
 * overlays, so a backend loads the content of the chosen rows only.
 */
export function chooseRecentWindow(
  rows: readonly SizedRow[],
  overlays: readonly StoredCompaction[],
  maxContentBytes: number,
  minRecentMessages = 1,
): RecentWindow {
  let totalContentBytes = 0;
  for (const row of rows) totalContentBytes += row.bytes;
  const spans = applyOverlaySpans(
    rows.map((row) => row.id),
    overlays,
  );
  const floor = Math.max(
    1,
    Math.floor(Number.isFinite(minRecentMessages) ? minRecentMessages : 1),
  );
  let start = spans.length;
  let used = 0;
  while (start > 0) {
    const size = spanBytes(spans[start - 1]!, rows);
    const taken = spans.length - start;
    if (taken >= floor && used + size > maxContentBytes) break;
    used += size;
    start--;
  }
  return { spans: spans.slice(start), truncated: start > 0, totalContentBytes };
}

/**
 * `chooseRecentWindow` of a whole path told from its newest rows alone (`suffix`, root-most
 * first, the leaf last), so a backend can read from the leaf upward until the budget is met
 * instead of reading the whole path. `null` when those rows cannot tell: the window takes all of
 * them and the path goes on above them (`reachedRoot` false), or an overlay that ends among them
 * starts above them (its summary would stand where the suffix starts). Otherwise the window is
 * the whole path's, its spans indexing `suffix`; its `totalContentBytes` counts the suffix only.
 */
export function chooseRecentWindowOfSuffix(
  suffix: readonly SizedRow[],
  reachedRoot: boolean,
  overlays: readonly StoredCompaction[],
  maxContentBytes: number,
  minRecentMessages = 1,
): RecentWindow | null {
  if (!reachedRoot && overlays.length > 0) {
    // An overlay from above to a row here: the whole path's spans start inside one here, so the
    // suffix's would differ. (Its start may be on another branch instead; reading on finds out.)
    const here = new Set(suffix.map((row) => row.id));
    for (const overlay of overlays)
      if (here.has(overlay.toMessageId) && !here.has(overlay.fromMessageId))
        return null;
  }
  const window = chooseRecentWindow(
    suffix,
    overlays,
    maxContentBytes,
    minRecentMessages,
  );
  // A window that stops short of the suffix's first span stops there on the whole path too.
  return window.truncated || reachedRoot ? window : null;
}

// --- Internal helpers ---

function spanBytes(span: OverlaySpan, rows: readonly SizedRow[]): number {
  return span.kind === "row"
    ? rows[span.index]!.bytes
    : utf8Length(JSON.stringify(summaryMessage(span.overlay)));
}
