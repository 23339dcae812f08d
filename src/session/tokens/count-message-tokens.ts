/**
 * Internal: docs/behavior/overlays.md's per-part rules with a pluggable string counter, shared by the multilingual
 * estimate and `arbor-memory/tokenizer` so both count exactly the parts the default heuristic counts.
 */
import { isToolPart } from "../messages/tool-parts.js";
import type { SessionMessage } from "../contracts/types.js";
import { jsonText } from "../messages/json-text.js";

/** Fixed overhead per message (role, separators), as in docs/behavior/overlays.md. */
const TOKENS_PER_MESSAGE = 4;

/**
 * Per message `TOKENS_PER_MESSAGE`, plus text and reasoning, tool input and output (or
 * `result`), and the `text`/`result` of other parts, each measured with `countString`.
 */
export function countMessageTokens(
  messages: readonly SessionMessage[],
  countString: (text: string) => number,
): number {
  const countValue = (value: unknown): number =>
    value === null || value === undefined
      ? 0
      : countString(typeof value === "string" ? value : jsonText(value));
  let total = 0;
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE;
    for (const part of message.parts) {
      if (part.type === "text" || part.type === "reasoning") {
        total += countValue(part.text ?? part.reasoning);
      } else if (isToolPart(part)) {
        total +=
          countValue(part.input) + countValue(part.output ?? part.result);
      } else if (part.text !== undefined) {
        total += countValue(part.text);
      } else if (part.result !== undefined) {
        total += countValue(part.result);
      }
    }
  }
  return total;
}
