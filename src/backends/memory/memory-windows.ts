import { messagesFromSpans } from "../../session/tree/path-history.js";
import { chooseRecentWindow } from "../../session/tree/recent-window.js";
import type { PathEntry } from "../../session/contracts/provider.js";
import type {
  HistoryRowStat,
  RecentHistoryResult,
  SessionMessage,
  StoredCompaction,
} from "../../session/contracts/types.js";
import type { MemoryRow, MemorySessionData } from "./memory-store.js";

/**
 * The ids and sizes of a path's rows, for streamed history (docs/behavior/history.md).
 *
 * @param bytesOf what a row costs on read, as the row stats count it.
 */
export function pathEntries(
  path: readonly MemoryRow[],
  bytesOf: (row: MemoryRow) => number,
): PathEntry[] {
  return path.map((row) => ({ id: row.id, bytes: bytesOf(row) }));
}

/**
 * The `{ id, role, bytes }` of a path's rows, root first (docs/behavior/history.md, "Recent
 * history and row stats").
 *
 * @param bytesOf what a row costs on read, attachments included.
 */
export function rowStats(
  path: readonly MemoryRow[],
  bytesOf: (row: MemoryRow) => number,
): HistoryRowStat[] {
  return path.map((row) => ({
    id: row.id,
    role: row.role,
    bytes: bytesOf(row),
  }));
}

/**
 * The newest messages of a path that fit `maxContentBytes`, overlays applied
 * (docs/behavior/history.md, "Recent history and row stats"). Sizes choose the window first, so only
 * the rows inside it are decoded.
 *
 * @param bytesOf what a row costs on read, as the row stats count it.
 * @param decode a stored row's JSON as read (attachments restored).
 */
export function recentHistory(
  path: readonly MemoryRow[],
  overlays: readonly StoredCompaction[],
  limits: { maxContentBytes: number; minRecentMessages: number },
  bytesOf: (row: MemoryRow) => number,
  decode: (json: string) => SessionMessage | null,
): RecentHistoryResult {
  const window = chooseRecentWindow(
    path.map((row) => ({ id: row.id, bytes: bytesOf(row) })),
    overlays,
    limits.maxContentBytes,
    limits.minRecentMessages,
  );
  return {
    messages: messagesFromSpans(window.spans, (index) =>
      decode(path[index]!.json),
    ),
    truncated: window.truncated,
    totalContentBytes: window.totalContentBytes,
  };
}

/**
 * The stored messages with these ids, in the given order; `null` for unknown or unreadable rows.
 *
 * @param decode a stored row's JSON as read (attachments restored).
 */
export function messagesByIds(
  data: MemorySessionData | undefined,
  ids: readonly string[],
  decode: (json: string) => SessionMessage | null,
): Array<SessionMessage | null> {
  return ids.map((id) => {
    const row = data?.rows.get(id);
    return row ? decode(row.json) : null;
  });
}
