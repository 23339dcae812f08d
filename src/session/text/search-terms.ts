/**
 * Query and text handling shared by every search backend (docs/behavior/search.md). A query is split on
 * whitespace into terms (`analyzeQuery` in query-analysis.ts decides which count and how).
 * Operator characters are ordinary characters.
 *
 * CJK scripts are written without spaces, so a word-splitting index keeps a whole sentence as one
 * token. Arbor indexes each Han, Hiragana, Katakana and Hangul character as its own token and turns
 * a CJK query term into a phrase of single characters: the index then finds a CJK word of any
 * length, from one character up, anywhere inside a sentence (see docs/search.md).
 */

import { porterStem } from "./porter-stemmer.js";

const CJK_CHARACTER =
  /[\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}\p{Script_Extensions=Hangul}]/gu;
const CJK_TEST =
  /[\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}\p{Script_Extensions=Hangul}]/u;
const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/** The terms of a query: whitespace-separated, empties dropped. */
export function queryTerms(query: unknown): string[] {
  if (typeof query !== "string") return [];
  // FTS5 reads a query only up to a NUL character, so NUL separates terms like a space.
  return query.split(/[\s\u0000]+/u).filter((term) => term.length > 0);
}

/**
 * The terms of a query a text search can match: those with a letter or a digit. Empty for a
 * query of emoji or punctuation only, which a text search answers with no hits because nothing in
 * it was searchable (not because nothing matched): tools say so instead of "no results".
 */
export function searchableTerms(query: unknown): string[] {
  return queryTerms(query).filter((term) => WORD_CHARACTER.test(term));
}

/** True when the text holds a Han, Hiragana, Katakana or Hangul character. */
export function hasCjk(text: string): boolean {
  return CJK_TEST.test(text);
}

/** Surrounds every CJK character with spaces so a word tokenizer indexes it on its own. */
export function spaceCjk(text: string): string {
  return hasCjk(text) ? text.replace(CJK_CHARACTER, " $& ") : text;
}

/**
 * An FTS5 MATCH expression requiring every term of a query: each term becomes one quoted phrase
 * (inner quotes doubled), so operators are literal and terms are ANDed. Terms with no letter or digit can never
 * be an indexed token and are ignored. `null` when nothing searchable is left.
 */
export function toFts5Query(query: unknown): string | null {
  const phrases = searchableTerms(query).map(
    (term) => `"${spaceCjk(term).replaceAll('"', '""')}"`,
  );
  return phrases.length > 0 ? phrases.join(" ") : null;
}

/** Normalizes text for the in-memory matcher: NFKC and lower case (CJK substrings match on this). */
export function foldText(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

/**
 * Word tokens of folded text for the in-memory matcher: diacritics removed (as FTS5 `unicode61`
 * does), then stemmed with the Porter stemmer FTS5's `porter` tokenizer uses (`porterStem`).
 */
export function wordTokens(folded: string): string[] {
  return folded
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .normalize("NFC")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token.length > 0)
    .map(porterStem);
}
