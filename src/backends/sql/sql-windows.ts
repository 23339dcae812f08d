import type { PathEntry } from "../../session/contracts/provider.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import type {
  HistoryRowStat,
  SessionMessage,
} from "../../session/contracts/types.js";
import { decodeMessage } from "../../session/messages/message-codec.js";
import { restoreMessages } from "./sql-attachments.js";
import { readContentsByIds } from "./sql-message-chunks.js";
import { loadPathWithSizes } from "./sql-path.js";

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
