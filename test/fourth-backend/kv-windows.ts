// Bounded reads of a session document (docs/behavior/history.md, "Recent history and row
// stats"): the sizes of a path's rows, and the longest suffix of the path within a byte budget,
// overlays applied first so a window never starts inside a compacted range.
import {
  applyCompactions,
  isCompactionMessage,
  type HistoryRowStat,
  type RecentHistoryResult,
  type SessionMessage,
} from "arbor-memory/session";
import type { SessionDoc } from "./kv-documents.js";
import { pathIds, reviveMessage } from "./kv-tree.js";

const encoder = new TextEncoder();
const bytesOf = (text: string) => encoder.encode(text).length;

/** `{ id, role, bytes }` per row of the path, root first; `bytes` is the stored JSON's size. */
export function rowStats(
  doc: SessionDoc,
  leafId?: string | null,
): HistoryRowStat[] {
  return pathIds(doc, leafId).map((id) => {
    const json = doc.rows[id]!.json;
    return { id, role: reviveMessage(json).role, bytes: bytesOf(json) };
  });
}

/**
 * The newest items of the path that fit `maxContentBytes`, at least `minRecentMessages` (one at
 * the least), the leaf always included. An item is a stored row, at its stored size, or an
 * overlay's summary, at the size of its JSON.
 */
export function recentHistory(
  doc: SessionDoc,
  leafId: string | null | undefined,
  maxContentBytes: number,
  minRecentMessages = 1,
): RecentHistoryResult {
  const path = pathIds(doc, leafId);
  const totalContentBytes = path.reduce(
    (sum, id) => sum + bytesOf(doc.rows[id]!.json),
    0,
  );
  const items = applyCompactions(
    path.map((id) => reviveMessage(doc.rows[id]!.json)),
    doc.overlays,
  ).map((message: SessionMessage) => ({
    message,
    bytes:
      !isCompactionMessage(message) && doc.rows[message.id]
        ? bytesOf(doc.rows[message.id]!.json)
        : bytesOf(JSON.stringify(message)),
  }));
  const floor = Math.max(1, Math.floor(minRecentMessages) || 1);
  let start = items.length;
  let used = 0;
  while (start > 0) {
    const next = items[start - 1]!;
    const taken = items.length - start;
    if (taken >= floor && used + next.bytes > maxContentBytes) break;
    used += next.bytes;
    start--;
  }
  return {
    messages: items.slice(start).map((item) => item.message),
    truncated: start > 0,
    totalContentBytes,
  };
}
