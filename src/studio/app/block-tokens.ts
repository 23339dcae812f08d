/**
 * A block's token count as the store checks it against `maxTokens` (Arbor's heuristic,
 * docs/behavior/overlays.md: `ceil(max(length / 4, words × 1.3))`), so the editor's live count is
 * the count the save is held to. The studio imports nothing from the library; a test keeps this
 * equal to `estimateStringTokens`.
 */
export function blockTokens(text: string): number {
  if (!text) return 0;
  let words = 0;
  let inWord = false;
  for (let index = 0; index < text.length; index++) {
    const space = isWhitespace(text.charCodeAt(index));
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return Math.ceil(Math.max(text.length / 4, words * 1.3));
}

/** The characters of the regex `\s`. */
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
