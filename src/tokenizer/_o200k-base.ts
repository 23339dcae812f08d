import { ArborError } from "../session/errors/index.js";

// Special-token text such as "<|endoftext|>" in a message is counted as plain text, never thrown on.
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

// Loaded when `arbor-memory/tokenizer` is imported: gpt-tokenizer is an optional peer, and a
// missing one should say how to install it rather than surface ERR_MODULE_NOT_FOUND.
const { countTokens } = await loadEncoding();

/** The number of o200k_base tokens in `text`, special-token markers counted as plain text. */
export function countO200kTokens(text: string): number {
  return countTokens(text, AS_PLAIN_TEXT);
}

// --- Internal helpers ---

async function loadEncoding(): Promise<
  typeof import("gpt-tokenizer/encoding/o200k_base")
> {
  try {
    return await import("gpt-tokenizer/encoding/o200k_base");
  } catch (error) {
    throw new ArborError(
      "MISSING_DEPENDENCY",
      "[arbor] [tokenizer] arbor-memory/tokenizer needs the optional peer dependency gpt-tokenizer: npm install gpt-tokenizer",
      { cause: error },
    );
  }
}
