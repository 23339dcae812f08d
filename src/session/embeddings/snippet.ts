import { porterStem } from "../text/porter-stemmer.js";
import { analyzeQuery } from "../text/query-analysis.js";
import { foldText, hasCjk } from "../text/search-terms.js";

/** Characters of context a snippet keeps on each side of its first match. */
const CONTEXT_CHARS = 80;
/**
 * Letters a marked word may run on past the term ("deploy" marks "deployed", "book" marks
 * "booking"): the endings a stemmer would have matched, not a longer word that starts the same way.
 */
const MAX_ENDING = 3;
const WORD_CHAR = /[\p{L}\p{N}]/u;
const EDGE_PUNCTUATION = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

/**
 * A short excerpt of `content` around the first query term it contains, every occurrence of a
 * term that counts wrapped in `«` and `»`. The terms are the ones search ranks by (stop words and
 * question words dropped, irregular verb forms added: docs/behavior/search.md); a term matches at
 * the start of a word (anywhere for CJK), folding case and width, and its mark covers the rest of
 * the word when that is a short ending. Without any term in the text (a match by meaning) it is
 * the text's beginning.
 */
export function snippetOf(content: string, query: string): string {
  const forms = [
    ...new Set(
      (analyzeQuery(query)?.terms ?? [])
        .flatMap((term) => term.forms)
        .map((form) => foldText(form).replace(EDGE_PUNCTUATION, ""))
        .filter((form) => form.length > 0)
        // The stem too ("books" marks "booked"), as the search matched it.
        .flatMap((form) => (hasCjk(form) ? [form] : [form, porterStem(form)])),
    ),
  ].sort((a, b) => b.length - a.length);
  const folded = foldText(content);
  // Folding can change lengths (NFKC); marks then fall back to the plain excerpt.
  const aligned = folded.length === content.length;
  const matchAt = (at: number): number => {
    if (at > 0 && WORD_CHAR.test(folded[at - 1]!)) {
      return (
        forms.find((form) => hasCjk(form) && folded.startsWith(form, at))
          ?.length ?? 0
      );
    }
    for (const form of forms) {
      if (!folded.startsWith(form, at)) continue;
      if (hasCjk(form)) return form.length;
      let end = at + form.length;
      while (end < folded.length && WORD_CHAR.test(folded[end]!)) end++;
      if (end - (at + form.length) <= MAX_ENDING) return end - at;
    }
    return 0;
  };
  let first = -1;
  if (aligned && forms.length > 0) {
    for (let at = 0; at < folded.length; at++) {
      if (matchAt(at) > 0) {
        first = at;
        break;
      }
    }
  }
  if (first < 0) return excerpt(content, 0, CONTEXT_CHARS * 2);
  const start = Math.max(0, first - CONTEXT_CHARS);
  const end = Math.min(content.length, first + CONTEXT_CHARS * 2);
  let out = "";
  let at = start;
  while (at < end) {
    const length = matchAt(at);
    if (length > 0) {
      out += `«${content.slice(at, at + length)}»`;
      at += length;
    } else out += content[at++]!;
  }
  return `${start > 0 ? "…" : ""}${out}${end < content.length ? "…" : ""}`;
}

function excerpt(content: string, start: number, length: number): string {
  const end = Math.min(content.length, start + length);
  return `${content.slice(start, end)}${end < content.length ? "…" : ""}`;
}
