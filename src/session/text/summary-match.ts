import type { MatchMode } from "../contracts/types.js";
import { analyzeQuery } from "./query-analysis.js";
import { foldText } from "./search-terms.js";

/**
 * How a text query matches an overlay's summary (docs/search.md): case and width folded, as a
 * substring (no stemming). Under `match: "any"` (the default) any of the terms that count
 * (`analyzeQuery`: stop words dropped, a verb's other forms accepted) occurs in it; under
 * `"all"` every whitespace-separated term does. Summaries are few next to messages and have no
 * index row of their own; the stores narrow them in SQL with `summaryPrefilter`, then confirm
 * each candidate here.
 */
export function summaryMatches(
  summary: string,
  query: string,
  match: MatchMode = "any",
): boolean {
  return summaryMatchCount(summary, query, match) > 0;
}

/**
 * How many of the query's terms a summary holds when it matches (`summaryMatches`), else 0.
 * Summary searches order by it, most first, then newest first.
 */
export function summaryMatchCount(
  summary: string,
  query: string,
  match: MatchMode = "any",
): number {
  const terms = summaryTerms(query, match);
  if (terms.length === 0) return 0;
  const folded = foldText(summary);
  const held = terms.filter((forms) =>
    forms.some((form) => folded.includes(form)),
  ).length;
  return match === "all" && held < terms.length ? 0 : held;
}

/** Sorts summary hits by `count`, most first; stable, so newest first stays among equals. */
export function byMatchCount<T extends { count: number }>(hits: T[]): T[] {
  return hits.sort((a, b) => b.count - a.count);
}

/**
 * What a store may ask of a summary in SQL without ever dropping one `summaryMatches` accepts:
 * a summary with any non-ASCII character is always a candidate (folding can turn such a character
 * into a term's letters, e.g. a full-width one); an ASCII-only summary must contain the patterns
 * (`every`: all of them; otherwise any one), as case-insensitive `LIKE` patterns (ASCII case folds
 * the same way there), `\` escaping. `asciiPatterns` is `null` when no ASCII-only summary can
 * match (under `"all"`, a term has a non-ASCII character).
 */
export function summaryPrefilter(
  query: string,
  match: MatchMode = "any",
): {
  asciiPatterns: string[] | null;
  every: boolean;
} {
  const terms = summaryTerms(query, match);
  const pattern = (form: string) =>
    `%${form.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  if (match === "all") {
    const forms = terms.map((term) => term[0]!);
    if (forms.some((form) => !ASCII_ONLY.test(form)))
      return { asciiPatterns: null, every: true };
    return { asciiPatterns: forms.map(pattern), every: true };
  }
  const forms = terms.flat().filter((form) => ASCII_ONLY.test(form));
  return {
    asciiPatterns: forms.length > 0 ? forms.map(pattern) : null,
    every: false,
  };
}

// --- Internal helpers ---

const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** Each term's folded forms. */
function summaryTerms(query: string, match: MatchMode): string[][] {
  const analyzed = analyzeQuery(query, match);
  if (analyzed === null) return [];
  return analyzed.terms.map((term) => term.forms.map((form) => foldText(form)));
}
