/**
 * Exact token counts with a real tokenizer, gpt-tokenizer's o200k_base
 * (GPT-4o, GPT-4.1, GPT-5, o-series). Needs the optional peer dependency `gpt-tokenizer`
 * (`npm install gpt-tokenizer`). Kept off `arbor-memory/session`'s and `arbor-memory/utils`' load path: the
 * encoding costs about 20 MB of heap and 0.5 s to load. Without it, `multilingualTokenCounter()`
 * from `arbor-memory/utils` estimates within about 10% (docs/token-estimation.md).
 *
 * @example
 * ```ts
 * import { Session } from "arbor-memory/session";
 * import { exactTokenCounter } from "arbor-memory/tokenizer";
 *
 * const session = Session.create(store)
 *   .onCompaction(compact)
 *   .compactAfter(100_000, { tokenCounter: exactTokenCounter() });
 * ```
 *
 * @module arbor-memory/tokenizer
 */
export {
  countExactMessageTokens,
  countExactTokens,
  exactTokenCounter,
} from "./exact-token-counter.js";
