import type { PathEntry } from "../../session/contracts/provider.js";
import type {
  HistoryRowStat,
  RecentHistoryResult,
  SessionMessage,
} from "../../session/contracts/types.js";
import { decodeMessage } from "../../session/messages/message-codec.js";
import {
  chooseRecentWindow,
  chooseRecentWindowOfSuffix,
} from "../../session/tree/recent-window.js";
import { materializeSpans } from "../../session/messages/stored-rows.js";
import type { PostgresQueryable } from "./postgres-client.js";
import { restoreMessages } from "./postgres-attachments.js";
import { readCompactions } from "./postgres-compactions.js";
import { loadPathWithSizes, loadRecentPath } from "./postgres-path.js";
import { TEXT_ARRAY_SQL } from "./postgres-sql.js";

/**
 * The byte-budgeted suffix of the path to `leafId` (latest leaf when `null`) with overlays applied
 * (docs/behavior/history.md). The window is chosen on stored sizes read from the leaf upward, so
 * content is read for the chosen rows only.
 */
export async function loadRecentHistory(
  db: PostgresQueryable,
  sessionId: string,
  leafId: string | null,
  maxContentBytes: number,
  minRecentMessages: number,
): Promise<RecentHistoryResult> {
  const floor = Math.max(
    1,
    Math.floor(Number.isFinite(minRecentMessages) ? minRecentMessages : 1),
  );
  // From the leaf upward as far as the budget needs; the whole path only when an overlay
  // reaches above those rows.
  const [upward, overlays] = await Promise.all([
    loadRecentPath(db, sessionId, leafId, maxContentBytes, floor),
    readCompactions(db, sessionId),
  ]);
  if (upward.rows.length === 0)
    return { messages: [], truncated: false, totalContentBytes: 0 };
  const told = chooseRecentWindowOfSuffix(
    upward.rows,
    upward.reachedRoot,
    overlays,
    maxContentBytes,
    floor,
  );
  const rows = told
    ? upward.rows
    : await loadPathWithSizes(db, sessionId, leafId);
  const window = told
    ? { ...told, totalContentBytes: upward.totalBytes }
    : chooseRecentWindow(rows, overlays, maxContentBytes, floor);
  const ids = window.spans.flatMap((span) =>
    span.kind === "row" ? [rows[span.index]!.id] : [],
  );
  const contents = new Map<string, string>();
  if (ids.length > 0) {
    for (const row of await db.query<{ id: string; content: string }>(
      `SELECT id, content FROM assistant_messages
      WHERE session_id = ? AND id = ANY(${TEXT_ARRAY_SQL})`,
      [sessionId, JSON.stringify(ids)],
    )) {
      contents.set(row.id, row.content);
    }
  }
  return {
    messages: await restoreMessages(
      db,
      materializeSpans(window.spans, (index) => contents.get(rows[index]!.id)),
    ),
    truncated: window.truncated,
    totalContentBytes: window.totalContentBytes,
  };
}

/** `{ id, role, bytes }` per stored row on the path to `leafId`, root first, without content. */
export async function loadHistoryRowStats(
  db: PostgresQueryable,
  sessionId: string,
  leafId: string | null,
): Promise<HistoryRowStat[]> {
  const rows = await loadPathWithSizes(db, sessionId, leafId);
  return rows.map((row) => ({ id: row.id, role: row.role, bytes: row.bytes }));
}

/**
 * The ids and stored sizes of the path to `leafId` (latest leaf when `null`), root first, without
 * reading content: what a streamed history plans its windows on (docs/behavior/history.md).
 */
export async function loadPathEntries(
  db: PostgresQueryable,
  sessionId: string,
  leafId: string | null,
): Promise<PathEntry[]> {
  const rows = await loadPathWithSizes(db, sessionId, leafId);
  return rows.map((row) => ({ id: row.id, bytes: row.bytes }));
}

/** One window's messages by id, in the given order, attachments restored; `null` when absent or unreadable. */
export async function loadMessagesByIds(
  db: PostgresQueryable,
  sessionId: string,
  ids: readonly string[],
): Promise<Array<SessionMessage | null>> {
  if (ids.length === 0) return [];
  const contents = new Map<string, string>();
  for (const row of await db.query<{ id: string; content: string }>(
    `SELECT id, content FROM assistant_messages
    WHERE session_id = ? AND id = ANY(${TEXT_ARRAY_SQL})`,
    [sessionId, JSON.stringify(ids)],
  )) {
    contents.set(row.id, row.content);
  }
  return restoreMessages(
    db,
    ids.map((id) => {
      const content = contents.get(id);
      return content === undefined ? null : decodeMessage(content);
    }),
  );
}
