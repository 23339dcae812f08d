// The heuristic lives in session/tokens so that session modules (context blocks, compaction) can
// use it without importing utils, which sits above session; this file keeps its public path.
export {
  CHARS_PER_TOKEN,
  estimateMessageTokens,
  estimateStringTokens,
  TOKENS_PER_MESSAGE,
  WORDS_TOKEN_MULTIPLIER,
} from "../../session/tokens/estimate-tokens.js";
