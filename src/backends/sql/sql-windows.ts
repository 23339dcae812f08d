import type { PathEntry } from "../../session/contracts/provider.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import type {
  HistoryRowStat,
  RecentHistoryResult,
  SessionMessage,
} from "../../session/contracts/types.js";
import { decodeMessage } from "../../session/messages/message-codec.js";
import { chooseRecentWindow } from "../../session/tree/recent-window.js";
import { materializeSpans } from "../../session/messages/stored-rows.js";
import { restoreMessages } from "./sql-attachments.js";
import { readCompactions } from "./sql-compactions.js";
import { readContentsByIds, readContentsBySeqs } from "./sql-message-chunks.js";
import { loadPathWithSizes } from "./sql-path.js";
import { recentPathWindow } from "./sql-recent-path.js";

/**
 * The ids and stored sizes of the path to `leafId`, root first, without reading content: what a
 * streamed history plans its windows on (docs/behavior/history.md); `[]` without a leaf.
 */
export function loadPathEntries(
  agent: SqlProvider,
  sessionId: string,
  leafId: string | null,
): PathEntry[] {
  if (leafId === null) return [];
  return loadPathWithSizes(agent, sessionId, leafId).map((row) => ({
    id: row.id,
    bytes: row.bytes,
  }));
}

/** `{ id, role, bytes }` per stored row on the path to `leafId`, without reading content; `[]` without a leaf. */
export function loadHistoryRowStats(
  agent: SqlProvider,
  sessionId: string,
  leafId: string | null,
): HistoryRowStat[] {
  if (leafId === null) return [];
  return loadPathWithSizes(agent, sessionId, leafId).map((row) => ({
    id: row.id,
    role: row.role,
    bytes: row.bytes,
  }));
}

/**
 * The byte-budgeted suffix of the path to `leafId` (docs/behavior/history.md): the window is
 * chosen on stored sizes, read from the leaf upward as far as the budget needs (the whole path
 * only when an overlay reaches above those rows), so content is read for the chosen rows only.
 */
export function loadRecentHistory(
  agent: SqlProvider,
  sessionId: string,
  leafId: string | null,
  maxContentBytes: number,
  minRecentMessages: number,
): RecentHistoryResult {
  const empty = { messages: [], truncated: false, totalContentBytes: 0 };
  if (leafId === null) return empty;
  const overlays = readCompactions(agent, sessionId);
  const upward = recentPathWindow(
    agent,
    sessionId,
    leafId,
    overlays,
    maxContentBytes,
    minRecentMessages,
  );
  if (upward === null) return empty;
  const rows = upward?.rows ?? loadPathWithSizes(agent, sessionId, leafId);
  if (rows.length === 0) return empty;
  const window =
    upward?.window ??
    chooseRecentWindow(rows, overlays, maxContentBytes, minRecentMessages);
  const seqs = window.spans.flatMap((span) =>
    span.kind === "row" ? [rows[span.index]!.seq] : [],
  );
  const contents = readContentsBySeqs(agent, seqs);
  return {
    messages: restoreMessages(
      agent,
      materializeSpans(window.spans, (index) => contents.get(rows[index]!.seq)),
    ),
    truncated: window.truncated,
    totalContentBytes: window.totalContentBytes,
  };
}

/**
 * One window's messages by id, in the given order, as every read returns them (split messages
 * joined, attachments restored); `null` when absent or unreadable.
 */
export function loadMessagesByIds(
  agent: SqlProvider,
  sessionId: string,
  ids: readonly string[],
): Array<SessionMessage | null> {
  if (ids.length === 0) return [];
  const contents = readContentsByIds(agent, sessionId, ids);
  return restoreMessages(
    agent,
    ids.map((id) => {
      const content = contents.get(id);
      return content === undefined ? null : decodeMessage(content);
    }),
  );
}
