import { estimateStringTokensMultilingual } from "../utils/index.js";

/** Estimated tokens of a value as the client receives it (JSON). */
export function tokensOf(value: unknown): number {
  return estimateStringTokensMultilingual(
    typeof value === "string" ? value : JSON.stringify(value),
  );
}

/**
 * Cuts `text` to about `maxTokens` tokens, on a character boundary, marking the cut. A message
 * or block larger than the whole budget still comes back, shortened, never dropped silently.
 */
export function truncateText(
  text: string,
  maxTokens: number,
): { text: string; truncated: boolean } {
  if (estimateStringTokensMultilingual(text) <= maxTokens)
    return { text, truncated: false };
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (estimateStringTokensMultilingual(text.slice(0, middle)) <= maxTokens)
      low = middle;
    else high = middle - 1;
  }
  const omitted = text.length - low;
  return {
    text: `${text.slice(0, low)}… [${omitted} more characters]`,
    truncated: true,
  };
}

/**
 * The longest prefix of `items` (at least one) whose answer, as `build` makes it, fits `budget`
 * tokens. Used by every list answer: what does not fit is reached through the cursor.
 */
export function fitPrefix<T>(
  items: readonly T[],
  budget: number,
  build: (items: readonly T[]) => unknown,
): number {
  if (items.length === 0) return 0;
  let low = 1;
  let high = items.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (tokensOf(build(items.slice(0, middle))) <= budget) low = middle;
    else high = middle - 1;
  }
  return low;
}
