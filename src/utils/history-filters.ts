import { isCompactionMessage } from "../session/tree/apply-compactions.js";
import type {
  MaybePromise,
  SessionMessage,
} from "../session/contracts/types.js";
import type { CompactTokenCounter } from "./compaction/compact-function.js";
import { estimateMessageTokens } from "./tokens/estimate.js";
import { isCleanCut, toolCallGroups } from "./tool-calls.js";

/**
 * Shapes what is sent to the model (docs/behavior/agent-turns.md). Filters never modify storage; they return a
 * suffix of their input, optionally after the leading compaction summary.
 */
export type HistoryFilter = (
  messages: SessionMessage[],
) => MaybePromise<SessionMessage[]>;

/** Options shared by the history filters. */
export interface HistoryFilterOptions {
  /** Keep the compaction summary that precedes the kept messages. Default true. */
  keepSummary?: boolean;
}

/**
 * Keeps the last `n` messages (plus the compaction summary before them). When the cut would leave
 * a tool result without its call, the call's messages are kept too, so the result may be a few
 * messages longer than `n`.
 *
 * @example
 * ```ts
 * const recent = keepLastMessages(20)(await session.getHistory());
 * ```
 */
export function keepLastMessages(
  n: number,
  options: HistoryFilterOptions = {},
): HistoryFilter {
  return (messages) => {
    const groups = toolCallGroups(messages);
    const cut = extendCut(
      groups,
      Math.max(0, messages.length - Math.max(0, n)),
    );
    return withSummary(messages, cut, options);
  };
}

/**
 * Keeps the longest suffix whose token estimate fits `maxTokens`, always at least the last message
 * (plus the compaction summary before it, not counted). Counts one message at a time with
 * `tokenCounter`, else the heuristic. A tool result whose call does not fit is dropped with it; when
 * that would leave nothing, the call is kept instead.
 */
export function keepWithinTokenBudget(
  maxTokens: number,
  options: HistoryFilterOptions & { tokenCounter?: CompactTokenCounter } = {},
): HistoryFilter {
  const count =
    options.tokenCounter ??
    ((messages: SessionMessage[]) => estimateMessageTokens(messages));
  return async (messages) => {
    if (messages.length === 0) return [];
    let tokens = 0;
    let cut = messages.length;
    for (let index = messages.length - 1; index >= 0; index--) {
      const value = await count([messages[index]!]);
      const tokensOfMessage = Number.isFinite(value) ? Math.max(0, value) : 0;
      if (cut < messages.length && tokens + tokensOfMessage > maxTokens) break;
      tokens += tokensOfMessage;
      cut = index;
    }
    const groups = toolCallGroups(messages);
    const shrunk = shrinkCut(groups, cut);
    const kept = shrunk < messages.length ? shrunk : extendCut(groups, cut);
    return withSummary(messages, kept, options);
  };
}

/** Runs filters left to right, each on the previous one's output. */
export function composeHistoryFilters(
  ...filters: HistoryFilter[]
): HistoryFilter {
  return async (messages) => {
    let current = messages;
    for (const filter of filters) current = await filter(current);
    return current;
  };
}

// --- Internal helpers ---

/** Moves the cut back until no call group straddles it (the calls of kept results are kept). */
function extendCut(groups: Map<string, number[]>, cut: number): number {
  while (!isCleanCut(groups, cut)) {
    for (const indices of groups.values()) {
      if (indices[0]! < cut && indices.at(-1)! >= cut) cut = indices[0]!;
    }
  }
  return cut;
}

/** Moves the cut forward until no call group straddles it (results of cut calls are dropped). */
function shrinkCut(groups: Map<string, number[]>, cut: number): number {
  while (!isCleanCut(groups, cut)) {
    for (const indices of groups.values()) {
      if (indices[0]! < cut && indices.at(-1)! >= cut)
        cut = indices.at(-1)! + 1;
    }
  }
  return cut;
}

function withSummary(
  messages: SessionMessage[],
  cut: number,
  options: HistoryFilterOptions,
): SessionMessage[] {
  const kept = messages.slice(cut);
  if (options.keepSummary === false) return kept;
  const summaryIndex = messages.findIndex(isCompactionMessage);
  if (summaryIndex < 0 || summaryIndex >= cut) return kept;
  return [messages[summaryIndex]!, ...kept];
}
