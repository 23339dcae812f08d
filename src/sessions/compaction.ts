import {
  createCompactFunction as createArborCompactFunction,
  COMPACTION_PREFIX,
  isCompactionMessage,
} from "../utils/index.js";
import type { CompactOptions, CompactionFunction } from "./types.js";

export { COMPACTION_PREFIX, isCompactionMessage };

/**
 * The standard compaction function for `session.onCompaction()`: keeps the first three messages
 * and a recent tail of `keepRecentTokens` (default 20,000) verbatim, never separates a tool call
 * from its result, and summarizes the rest with `summarize`, extending the previous summary.
 *
 * @example
 * ```ts
 * session.onCompaction(createCompactFunction({ summarize: callMyModel })).compactAfter(80_000);
 * ```
 */
export function createCompactFunction(
  options: CompactOptions,
): CompactionFunction {
  const { summarize, keepRecentTokens } = options;
  // Arbor's function also takes the session's context (its `compactAfter` threshold), which
  // lowers the default tail budget when the threshold is small.
  return createArborCompactFunction({
    summarize,
    ...(keepRecentTokens === undefined
      ? {}
      : { tailTokenBudget: keepRecentTokens }),
  });
}
