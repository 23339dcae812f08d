/**
 * The compaction helpers under the import path the Cloudflare Agents SDK uses (`agents/experimental/memory/utils/compaction-helpers`).
 * The same objects as `arbor-memory/utils`, not copies.
 *
 * @module arbor-memory/utils/compaction-helpers
 */
export {
  alignBoundaryBackward,
  alignBoundaryForward,
  applyCompactions,
  buildSummaryPrompt,
  CHARS_PER_TOKEN,
  COMPACTION_PREFIX,
  computeSummaryBudget,
  createCompactFunction,
  enforceRowSizeLimit,
  estimateMessageTokens,
  estimateStringTokens,
  findTailCutByTokens,
  isCompactionMessage,
  MISSING_TOOL_RESULT_OUTPUT,
  ROW_MAX_BYTES,
  sanitizeToolPairs,
  TOKENS_PER_MESSAGE,
  truncateOlderMessages,
  truncateToolOutput,
  WORDS_TOKEN_MULTIPLIER,
  type CompactFunction,
  type CompactOptions,
  type CompactResult,
  type CompactTokenCounter,
  type RowSizeLimitOptions,
  type TruncatedToolOutput,
  type TruncateOptions,
} from "./index.js";
