import { CHARS_PER_TOKEN } from "../utils/index.js";
import { utf8Length } from "../session/encoding/utf8.js";
import type {
  HistoryRowStat,
  RecentHistoryResult,
  Session as ArborSession,
  SessionMessage,
} from "../session/index.js";
import type { SessionRowStat } from "./types.js";

/**
 * `getRecentHistory(maxBytes, { leafId })` for a chosen branch: Arbor's own window reads the
 * active path only, so the branch is streamed leaf first in bounded windows. The longest recent
 * suffix within `maxContentBytes` is kept (always at least the leaf); the rest of the branch is
 * only counted, for `totalContentBytes`. Bytes are the UTF-8 size of each message's JSON.
 */
export async function recentOnBranch(
  session: ArborSession,
  maxContentBytes: number,
  leafId: string,
): Promise<RecentHistoryResult> {
  const kept: SessionMessage[] = [];
  let keptBytes = 0;
  let totalContentBytes = 0;
  let truncated = false;
  for await (const message of session.history({ leafId, newestFirst: true })) {
    const bytes = messageBytes(message);
    totalContentBytes += bytes;
    if (
      !truncated &&
      (kept.length === 0 || keptBytes + bytes <= maxContentBytes)
    ) {
      kept.push(message);
      keptBytes += bytes;
    } else truncated = true;
  }
  return { messages: kept.reverse(), truncated, totalContentBytes };
}

/**
 * Row stats of a branch, when Arbor cannot give them without content (a `leafId`, or a provider
 * without `getHistoryRowStats`): the branch is streamed and each message measured.
 */
export async function statsOnBranch(
  session: ArborSession,
  leafId: string | undefined,
): Promise<SessionRowStat[]> {
  const stats: SessionRowStat[] = [];
  for await (const message of session.history({ leafId })) {
    stats.push(
      withTokens({
        id: message.id,
        role: message.role,
        bytes: messageBytes(message),
      }),
    );
  }
  return stats;
}

/** Arbor's stat with a token estimate derived from its size: no per-row estimate is stored. */
export function withTokens(stat: HistoryRowStat): SessionRowStat {
  return { ...stat, tokenEstimate: Math.ceil(stat.bytes / CHARS_PER_TOKEN) };
}

// --- Internal helpers ---

function messageBytes(message: SessionMessage): number {
  return utf8Length(JSON.stringify(message));
}
