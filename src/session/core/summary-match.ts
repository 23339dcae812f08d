import type { MatchMode } from "../contracts/types.js";
import { foldText, queryTerms } from "./search-terms.js";

/**
 * How a text query matches an overlay's summary (docs/search.md): every query term occurs in it,
 * case and width folded, as a substring (no stemming). Summaries are few next to messages and have
 * no index row of their own; the stores narrow them in SQL with `summaryPrefilter`, then confirm
 * each candidate here.
 */
export function summaryMatches(
  summary: string,
  query: string,
  match: MatchMode = "all",
): boolean {
  const terms = queryTerms(query).map((term) => foldText(term));
  if (terms.length === 0) return false;
  const folded = foldText(summary);
  return match === "all"
    ? terms.every((term) => folded.includes(term))
    : terms.some((term) => folded.includes(term));
}

/**
 * What a store may ask of a summary in SQL without ever dropping one `summaryMatches` accepts:
 * a summary with any non-ASCII character is always a candidate (folding can turn such a character
 * into a term's letters, e.g. a full-width one); an ASCII-only summary must contain every term, as
 * a case-insensitive `LIKE` pattern (ASCII case folds the same way there), `\` escaping.
 * `asciiPatterns` is `null` when a term has a non-ASCII character: no ASCII-only summary matches.
 */
export function summaryPrefilter(query: string): {
  asciiPatterns: string[] | null;
} {
  const terms = queryTerms(query).map((term) => foldText(term));
  if (terms.some((term) => !ASCII_ONLY.test(term)))
    return { asciiPatterns: null };
  return {
    asciiPatterns: terms.map(
      (term) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
    ),
  };
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;
