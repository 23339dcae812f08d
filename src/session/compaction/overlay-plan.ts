// The parts of a compaction run that only run when the compaction function returned a
// result (or an automatic one summarized nothing): where the overlay goes and what it saves, and
// the overlay a keyed compaction stored before (`compact(leafId, { requestKey })`).
// `SessionCompaction` loads them with a dynamic `import()` (docs/behavior/runtime.md).
import { estimateMessageTokens } from "../tokens/estimate-tokens.js";
import {
  COMPACTION_PREFIX,
  summaryMessage,
} from "../tree/apply-compactions.js";
import type { SessionTree } from "../state/session-tree.js";
import type { SessionProvider } from "../contracts/provider.js";
import { ArborError } from "../errors/index.js";
import type {
  CompactResult,
  SessionMessage,
  SessionTokenCounter,
  StoredCompaction,
} from "../contracts/types.js";

/**
 * Says what to change when an automatic compaction kept everything. The usual cause is the
 * protected tail and head of `createCompactFunction` covering the whole history, so the message
 * names those options and the value that leaves room (half the threshold, its default).
 */
export function nothingCompactedWarning(
  estimate: number,
  threshold: number,
): string {
  const tailBudget = Math.floor(threshold / 2);
  return (
    `[arbor] Auto-compaction triggered (estimate ${estimate} > compactAfter(${threshold})) but the compaction function summarized nothing. ` +
    `With createCompactFunction, the protected head (protectHead, default 3 messages) and tail (tailTokenBudget) must leave messages between them: ` +
    `leave tailTokenBudget unset or set it to ${tailBudget} or less (half the threshold), lower protectHead, ` +
    `or raise compactAfter() if the system prompt alone is near the threshold. A blank summary also compacts nothing.`
  );
}

export interface OverlayPlan {
  /** The overlay's start: the earliest of the result's and the visible overlays' starts. */
  from: string;
  to: string;
  /** Raw messages in the range. */
  covered: number;
  /** The range in `history` (overlays applied) the new summary replaces. */
  firstIndex: number;
  lastIndex: number;
}

/**
 * Validates a result against the raw path (both ends real and in order, a shown summary standing
 * for its overlay's range) and applies the iterative extension of docs/behavior/overlays.md
 * step 6. `null` when the result is not a range of this path.
 */
export async function planOverlay(
  tree: SessionTree,
  leafId: string | null | undefined,
  history: SessionMessage[],
  overlays: StoredCompaction[],
  result: CompactResult,
): Promise<OverlayPlan | null> {
  const rawIds =
    (await tree.historyRowStats(leafId))?.map((row) => row.id) ??
    rawIdsFromHistory(history, overlays);
  const position = new Map(rawIds.map((id, index) => [id, index]));
  const shown = new Set(history.map((message) => message.id));
  // A result may start or end at a summary shown in `history` (a compaction function that keeps
  // earlier summaries in its range, as on a second compaction of a branch): it stands for the
  // range its overlay covers, so the new overlay extends that one.
  const endpoint = (
    id: string,
    end: "fromMessageId" | "toMessageId",
  ): string | null => {
    if (typeof id !== "string") return null;
    if (!id.startsWith(COMPACTION_PREFIX)) return id;
    if (!shown.has(id)) return null;
    const overlay = overlays.find(
      (entry) => COMPACTION_PREFIX + entry.id === id,
    );
    return overlay ? overlay[end] : null;
  };
  const fromId = endpoint(result.fromMessageId, "fromMessageId");
  const toId = endpoint(result.toMessageId, "toMessageId");
  const isReal = (id: string | null): id is string =>
    id !== null && !id.startsWith(COMPACTION_PREFIX) && position.has(id);
  if (!isReal(fromId) || !isReal(toId)) return null;
  const to = position.get(toId)!;
  let from = position.get(fromId)!;
  if (from > to) return null;

  for (const overlay of overlays) {
    const start = position.get(overlay.fromMessageId);
    const end = position.get(overlay.toMessageId);
    const visible =
      shown.has(COMPACTION_PREFIX + overlay.id) ||
      (start !== undefined && end !== undefined);
    if (visible && start !== undefined && start < from) from = start;
  }

  // Where each history item sits on the raw path, to find the items the summary replaces.
  const spans = history.map((message) => {
    if (!message.id.startsWith(COMPACTION_PREFIX)) {
      const index = position.get(message.id) ?? -1;
      return [index, index] as const;
    }
    const overlay = overlays.find(
      (entry) => COMPACTION_PREFIX + entry.id === message.id,
    );
    return [
      position.get(overlay?.fromMessageId ?? "") ?? -1,
      position.get(overlay?.toMessageId ?? "") ?? -1,
    ] as const;
  });
  const firstIndex = Math.max(
    0,
    spans.findIndex(([, end]) => end >= from),
  );
  let lastIndex = firstIndex;
  spans.forEach(([start], index) => {
    if (start !== -1 && start <= to) lastIndex = Math.max(lastIndex, index);
  });
  return {
    from: rawIds[from]!,
    to: rawIds[to]!,
    covered: to - from + 1,
    firstIndex,
    lastIndex,
  };
}

/** The token estimate of `history` once the planned summary replaces its range. */
export async function estimateWithOverlay(
  history: SessionMessage[],
  plan: OverlayPlan,
  summary: string,
  tokenCounter: SessionTokenCounter | undefined,
): Promise<number> {
  const synthetic = summaryMessage({
    id: "pending",
    summary,
    fromMessageId: plan.from,
    toMessageId: plan.to,
    createdAt: new Date().toISOString(),
  });
  const after = [
    ...history.slice(0, plan.firstIndex),
    synthetic,
    ...history.slice(plan.lastIndex + 1),
  ];
  if (tokenCounter) {
    const value = await tokenCounter({
      messages: after,
      systemPrompt: "",
      contextBlocks: [],
    });
    return Number.isFinite(value) ? Math.max(0, Math.ceil(value)) : 0;
  }
  return estimateMessageTokens(after);
}

// --- Internal helpers ---

/** Without row stats: the raw path ids, with each summary expanded to its overlay's endpoints. */
function rawIdsFromHistory(
  history: SessionMessage[],
  overlays: StoredCompaction[],
): string[] {
  return history.flatMap((message) => {
    if (!message.id.startsWith(COMPACTION_PREFIX)) return [message.id];
    const overlay = overlays.find(
      (entry) => COMPACTION_PREFIX + entry.id === message.id,
    );
    return overlay ? [overlay.fromMessageId, overlay.toMessageId] : [];
  });
}

/** The overlay a keyed compaction stored before, as `compact()` returns it, or `null`. */
export async function storedUnder(
  provider: SessionProvider,
  requestKey: string,
): Promise<CompactResult | null> {
  const overlays = await provider.getCompactions();
  const overlay = overlays.findLast(
    (candidate) => candidate.meta?.requestKey === requestKey,
  );
  if (!overlay) return null;
  // What the first call returned: the function's own provenance, without what the Session added
  // when it stored the overlay.
  const {
    tokensBefore: _before,
    tokensAfter: _after,
    coveredMessages: _covered,
    requestKey: _key,
    ...meta
  } = overlay.meta ?? {};
  return {
    fromMessageId: overlay.fromMessageId,
    toMessageId: overlay.toMessageId,
    summary: overlay.summary,
    ...(Object.keys(meta).length > 0 ? { meta } : {}),
  };
}

/** `compact()`'s `requestKey` rule: a non-empty string when given (`INVALID_ARGUMENT`). */
export function checkRequestKey(requestKey: unknown): void {
  if (typeof requestKey !== "string" || requestKey === "")
    throw new ArborError(
      "INVALID_ARGUMENT",
      "compact() needs `requestKey` to be a non-empty string when given",
    );
}
