/*
 * The multilingual estimate lives in the session (session/tokens/), because the Session uses it as
 * the default counter of stores created since it became the default (docs/token-estimation.md);
 * utils re-exports it under its public names.
 */
export {
  MULTILINGUAL_TOKEN_WEIGHTS,
  estimateMessageTokensMultilingual,
  estimateStringTokensMultilingual,
  multilingualTokenCounter,
} from "../../session/tokens/multilingual-tokens.js";
