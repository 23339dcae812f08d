import type { SessionMessage, StoredCompaction } from "../contracts/types.js";

/** Prefix of the ids of synthetic summary messages (docs/behavior/overlays.md). */
export const COMPACTION_PREFIX = "compaction_";

/**
 * True for the id of an overlay's summary (`compaction_…`). Overlays are derived at read time;
 * a stored row with such an id is a summary someone wrote back as a message (older versions of
 * the `agents/sessions` package, a mirror that stored what it read).
 */
export function isOverlayRowId(id: unknown): id is string {
  return typeof id === "string" && id.startsWith(COMPACTION_PREFIX);
}

/**
 * Whether an id names a row a session hides: `compaction_<id>` of one of its own overlays
 * (tree/overlay-rows.ts).
 */
export type HiddenRowTest = (id: unknown) => id is string;

/** One step of a path after overlays: a stored row (by index) or a summary covering a range. */
export type OverlaySpan =
  | { kind: "row"; index: number }
  | {
      kind: "summary";
      overlay: StoredCompaction;
      fromIndex: number;
      toIndex: number;
    };

/**
 * Applies overlays to a path given as ids (docs/behavior/overlays.md): at each index the newest overlay that starts
 * there and ends later on the same path replaces its range. Overlays with an endpoint off the path
 * are ignored, which keeps a sibling branch's summary out of this branch.
 *
 * @param overlays oldest first (insertion order), as `getCompactions()` returns them.
 */
export function applyOverlaySpans(
  ids: readonly string[],
  overlays: readonly StoredCompaction[],
): OverlaySpan[] {
  const spans: OverlaySpan[] = [];
  const newestStartingAt =
    overlays.length > 0 ? indexOverlays(ids, overlays) : undefined;
  for (let index = 0; index < ids.length; index++) {
    const candidate = newestStartingAt?.get(index);
    if (candidate) {
      spans.push({ kind: "summary", ...candidate });
      index = candidate.toIndex;
    } else {
      spans.push({ kind: "row", index });
    }
  }
  return spans;
}

/** Applies overlays to a root → leaf path of messages (docs/behavior/overlays.md). Exported for custom providers. */
export function applyCompactions(
  path: readonly SessionMessage[],
  overlays: readonly StoredCompaction[],
): SessionMessage[] {
  if (overlays.length === 0) return [...path];
  return applyOverlaySpans(
    path.map((message) => message.id),
    overlays,
  ).map((span) =>
    span.kind === "row" ? path[span.index]! : summaryMessage(span.overlay),
  );
}

/** The synthetic message that stands for an overlay in a read path. */
export function summaryMessage(overlay: StoredCompaction): SessionMessage {
  return {
    id: COMPACTION_PREFIX + overlay.id,
    role: "assistant",
    parts: [{ type: "text", text: overlay.summary }],
    createdAt: new Date(overlay.createdAt),
  };
}

/** True for the synthetic summary messages that overlays produce. */
export function isCompactionMessage(
  message: { id: string } | null | undefined,
): boolean {
  return (
    typeof message?.id === "string" && message.id.startsWith(COMPACTION_PREFIX)
  );
}

// --- Internal helpers ---

function indexOverlays(
  ids: readonly string[],
  overlays: readonly StoredCompaction[],
): Map<
  number,
  { overlay: StoredCompaction; fromIndex: number; toIndex: number }
> {
  const position = new Map<string, number>();
  ids.forEach((id, index) => position.set(id, index));
  const newest = new Map<
    number,
    { overlay: StoredCompaction; fromIndex: number; toIndex: number }
  >();
  // Later rows are newer, so a later valid overlay replaces an earlier one at the same start.
  for (const overlay of overlays) {
    const fromIndex = position.get(overlay.fromMessageId);
    const toIndex = position.get(overlay.toMessageId);
    if (fromIndex === undefined || toIndex === undefined || toIndex < fromIndex)
      continue;
    newest.set(fromIndex, { overlay, fromIndex, toIndex });
  }
  return newest;
}
