/**
 * Framework-neutral helpers around sessions: overlay application, the
 * compaction algorithm and its helpers, token estimation, read-time truncation, the row-size
 * limit and history filters. Pure functions over `SessionMessage[]`; loads in workerd (no Node-only
 * imports, no tokenizer).
 *
 * @example
 * ```ts
 * import { createCompactFunction, estimateMessageTokens } from "arbor-memory/utils";
 *
 * const compact = createCompactFunction({ summarize: async (prompt) => callMyModel(prompt) });
 * const result = await compact(await session.getHistory());
 * console.log(estimateMessageTokens(await session.getHistory()));
 * ```
 *
 * @module arbor-memory/utils
 */
export {
  applyCompactions,
  COMPACTION_PREFIX,
  isCompactionMessage,
} from "../session/tree/apply-compactions.js";
export {
  CHARS_PER_TOKEN,
  estimateMessageTokens,
  estimateStringTokens,
  TOKENS_PER_MESSAGE,
  WORDS_TOKEN_MULTIPLIER,
} from "./tokens/estimate.js";
export {
  alignBoundaryBackward,
  alignBoundaryForward,
} from "./compaction/align.js";
export { findTailCutByTokens } from "./compaction/tail-cut.js";
export {
  buildSummaryPrompt,
  computeSummaryBudget,
} from "./compaction/summary-prompt.js";
export {
  createCompactFunction,
  type CompactFunction,
  type CompactOptions,
  type CompactResult,
  type CompactTokenCounter,
} from "./compaction/compact-function.js";
export {
  MISSING_TOOL_RESULT_OUTPUT,
  sanitizeToolPairs,
} from "./compaction/sanitize-tool-pairs.js";
export {
  truncateOlderMessages,
  type TruncateOptions,
} from "./truncation/truncate.js";
export {
  truncateToolOutput,
  type TruncatedToolOutput,
} from "../session/messages/truncate-tool-output.js";
export {
  enforceRowSizeLimit,
  ROW_MAX_BYTES,
  type RowSizeLimitOptions,
} from "../session/messages/row-size-limit.js";
export {
  composeHistoryFilters,
  keepLastMessages,
  keepWithinTokenBudget,
  type HistoryFilter,
  type HistoryFilterOptions,
} from "./history-filters.js";
export {
  assembleContext,
  NO_MESSAGES_ERROR,
  type AssembleContextOptions,
  type AssembledContext,
  type ContextSource,
} from "./assemble-context.js";
export {
  estimateMessageTokensMultilingual,
  estimateStringTokensMultilingual,
  MULTILINGUAL_TOKEN_WEIGHTS,
  multilingualTokenCounter,
} from "./tokens/multilingual-estimate.js";
export type { ScriptFeatures } from "../session/tokens/script-features.js";
