import { foldText, queryTerms } from "../core/search-terms.js";

/** Characters of context a snippet keeps on each side of its first match. */
const CONTEXT_CHARS = 80;

/**
 * A short excerpt of `content` around the first query term it contains, every occurrence of a
 * term wrapped in `«` and `»`. Matching folds case and width; stems (FTS5's porter) are not
 * marked. Without any term in the text (a match by meaning) it is the text's beginning.
 */
export function snippetOf(content: string, query: string): string {
  const terms = queryTerms(query)
    .map((term) => foldText(term))
    .filter((term) => term.length > 0 && /[\p{L}\p{N}]/u.test(term));
  const folded = foldText(content);
  // Folding can change lengths (NFKC); marks then fall back to the plain excerpt.
  const aligned = folded.length === content.length;
  let first = -1;
  if (aligned) {
    for (const term of terms) {
      const at = folded.indexOf(term);
      if (at >= 0 && (first < 0 || at < first)) first = at;
    }
  }
  if (first < 0) return excerpt(content, 0, CONTEXT_CHARS * 2);
  const start = Math.max(0, first - CONTEXT_CHARS);
  const end = Math.min(content.length, first + CONTEXT_CHARS * 2);
  let out = "";
  let at = start;
  while (at < end) {
    const term = terms.find((t) => folded.startsWith(t, at));
    if (term) {
      out += `«${content.slice(at, at + term.length)}»`;
      at += term.length;
    } else out += content[at++];
  }
  return `${start > 0 ? "…" : ""}${out}${end < content.length ? "…" : ""}`;
}

function excerpt(content: string, start: number, length: number): string {
  const end = Math.min(content.length, start + length);
  return `${content.slice(start, end)}${end < content.length ? "…" : ""}`;
}
