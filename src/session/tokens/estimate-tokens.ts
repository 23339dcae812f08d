import type { SessionMessage } from "../contracts/types.js";
import { jsonText } from "../messages/json-text.js";
import { isToolPart } from "../messages/tool-parts.js";

/** Characters per token of the heuristic (docs/behavior/overlays.md). */
export const CHARS_PER_TOKEN = 4;
/** Tokens per whitespace-separated word of the heuristic (docs/behavior/overlays.md). */
export const WORDS_TOKEN_MULTIPLIER = 1.3;
/** Fixed overhead per message (role, separators) (docs/behavior/overlays.md). */
export const TOKENS_PER_MESSAGE = 4;

/**
 * Heuristic token count of a string, no tokenizer (docs/behavior/overlays.md): `0` for empty, else
 * `ceil(max(length / 4, words × 1.3))`, length in UTF-16 code units.
 *
 * @example
 * ```ts
 * estimateStringTokens("Hello world"); // 3
 * ```
 */
export function estimateStringTokens(text: string): number {
  if (!text) return 0;
  return Math.ceil(
    Math.max(
      text.length / CHARS_PER_TOKEN,
      countWords(text) * WORDS_TOKEN_MULTIPLIER,
    ),
  );
}

/**
 * Heuristic token count of messages (docs/behavior/overlays.md): per message `TOKENS_PER_MESSAGE`, plus text and
 * reasoning, tool input and output (or `result`), and the `text`/`result` of other parts. File and
 * image parts count 0; pass a real counter where that matters.
 */
export function estimateMessageTokens(
  messages: readonly SessionMessage[],
): number {
  let total = 0;
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE;
    for (const part of message.parts) {
      if (part.type === "text" || part.type === "reasoning") {
        total += estimateValueTokens(part.text ?? part.reasoning);
      } else if (isToolPart(part)) {
        total +=
          estimateValueTokens(part.input) +
          estimateValueTokens(part.output ?? part.result);
      } else if (part.text !== undefined) {
        total += estimateValueTokens(part.text);
      } else if (part.result !== undefined) {
        total += estimateValueTokens(part.result);
      }
    }
  }
  return total;
}

// --- Internal helpers ---

function estimateValueTokens(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return estimateStringTokens(
    typeof value === "string" ? value : jsonText(value),
  );
}

/** Non-empty runs between whitespace (the characters of the regex `\s`), without splitting. */
function countWords(text: string): number {
  let words = 0;
  let inWord = false;
  for (let index = 0; index < text.length; index++) {
    const space = isWhitespace(text.charCodeAt(index));
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return words;
}

function isWhitespace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
