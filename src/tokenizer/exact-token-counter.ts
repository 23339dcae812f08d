import type {
  SessionMessage,
  SessionTokenCounter,
  SessionTokenCounterInput,
} from "../session/contracts/types.js";
import { countMessageTokens } from "../session/tokens/count-message-tokens.js";
import { countO200kTokens } from "./_o200k-base.js";

/**
 * The exact number of o200k_base tokens in `text` (the encoding of GPT-4o, GPT-4.1, GPT-5 and the
 * o-series). Special-token markers are counted as the plain text they are.
 *
 * @example
 * ```ts
 * import { countExactTokens } from "arbor-memory/tokenizer";
 * countExactTokens("Hello world"); // 2
 * ```
 */
export function countExactTokens(text: string): number {
  return text.length === 0 ? 0 : countO200kTokens(text);
}

/**
 * `estimateMessageTokens` (docs/behavior/overlays.md) with exact string counts: the same parts, the same 4
 * tokens per message for the chat framing. Usable as a `CompactTokenCounter`.
 *
 * @example
 * ```ts
 * import { createCompactFunction } from "arbor-memory/utils";
 * import { countExactMessageTokens } from "arbor-memory/tokenizer";
 * const compact = createCompactFunction({ summarize, tokenCounter: countExactMessageTokens });
 * ```
 */
export function countExactMessageTokens(
  messages: readonly SessionMessage[],
): number {
  return countMessageTokens(messages, countExactTokens);
}

/**
 * A `SessionTokenCounter` backed by a real tokenizer: exact message tokens plus the system
 * prompt's tokens, counted like the default (docs/behavior/overlays.md). Context blocks are not added: they are
 * already part of the rendered system prompt.
 *
 * @example
 * ```ts
 * import { exactTokenCounter } from "arbor-memory/tokenizer";
 * session.compactAfter(100_000, { tokenCounter: exactTokenCounter() });
 * ```
 */
export function exactTokenCounter(): SessionTokenCounter {
  const counter = ({ messages, systemPrompt }: SessionTokenCounterInput) =>
    countExactMessageTokens(messages) + countExactTokens(systemPrompt);
  // Per message, so the Session counts each message once instead of the branch per insert.
  return Object.assign(counter, {
    perMessage: {
      message: (message: SessionMessage) => countExactMessageTokens([message]),
      text: countExactTokens,
    },
  });
}
