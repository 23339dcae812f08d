/**
 * What a text query asks for, shared by every backend (docs/behavior/search.md): its terms, and
 * for ranked any-term search (`match: "any"`, the default) which of them count. Stop words and
 * question scaffolding of the language the query reads as are dropped ("When did Caroline go to
 * the support group?" → `Caroline`, `go`, `support`, `group`), numbers and capitalised words
 * inside a sentence never are, and an irregular English verb is widened to all its forms
 * (`go` → `went`, `gone`, …). `match: "all"` keeps every whitespace-separated term, as written.
 */
import type { MatchMode, PrefixMode } from "../contracts/types.js";
import { verbForms, verbStemKey } from "./irregular-verbs.js";
import { queryTerms, spaceCjk } from "./search-terms.js";
import { isStopword, stopwordKey, stopwordLanguages } from "./stopwords.js";

/** One term of a query. */
export interface QueryTerm {
  /** The term as written. */
  text: string;
  /** Forms any one of which matches the term: `text` first, then other forms of its verb. */
  forms: readonly string[];
  /**
   * The term matches as the start of a word (`prefix` option, docs/search.md#prefix-search):
   * then it has one form, itself.
   */
  prefix?: true;
}

/**
 * The fewest letters or digits a term needs to match as a prefix: a one-letter prefix would
 * match a large share of every index's words, at the cost of reading all their postings.
 */
export const MIN_PREFIX_LENGTH = 2;

/** A query's terms and how they must match. */
export interface AnalyzedQuery {
  match: MatchMode;
  /** Never empty: `analyzeQuery` returns `null` when nothing searchable is left. */
  terms: readonly QueryTerm[];
}

/**
 * Terms an analysis keeps, in the query's order; later ones are ignored. A question's key word
 * often comes late ("I was going through our previous conversation … can you remind me which one
 * is implemented in the SIAC_GEE tool?"), so more are kept than are ranked.
 */
export const MAX_QUERY_TERMS = 24;

/**
 * Terms a ranked any-term search over messages uses at most: the rarest of the query's
 * (`rarestTerms`). Each term is one more posting list an OR query walks.
 */
export const MAX_RANKED_TERMS = 8;

/**
 * Forms (phrases) a ranked any-term search uses at most, over all its terms: FTS5's `bm25()`
 * counts the matches of every phrase in the whole index, so each one costs in proportion to how
 * common it is. A term past the budget keeps only its own form.
 */
export const MAX_RANKED_FORMS = 16;

/**
 * The terms of `query` under `match` (default `"any"`), or `null` when no term has a letter or
 * digit. Under `"any"`, when every term is a stop word ("the", "NOT") they all count, so such a
 * query still finds the messages that hold them.
 */
export function analyzeQuery(
  query: unknown,
  match: MatchMode = "any",
  prefix?: PrefixMode,
): AnalyzedQuery | null {
  const words = queryTerms(query).filter((term) => WORD_CHARACTER.test(term));
  if (words.length === 0) return null;
  // Which words match as prefixes: a word being typed is not a stop word yet ("budget in" may
  // become "budget invoice"), so such a word is never dropped.
  const prefixAt = (at: number) =>
    prefix !== undefined &&
    (prefix === "all" || at === words.length - 1) &&
    PREFIX_WORD.test(words[at]!) &&
    Array.from(words[at]!).length >= MIN_PREFIX_LENGTH;
  const term = (text: string, at: number, key: string): QueryTerm =>
    prefixAt(at)
      ? { text, forms: [text], prefix: true }
      : { text, forms: match === "all" ? [text] : formsOf(text, key) };
  if (match === "all")
    return { match, terms: words.map((text, at) => term(text, at, "")) };
  const keys = words.map(stopwordKey);
  const languages = stopwordLanguages(keys);
  const content = words
    .map((word, at) => ({ word, key: keys[at]!, at }))
    .filter(
      ({ word, key, at }) =>
        prefixAt(at) || !dropped(word, key, at, words, languages),
    );
  const chosen =
    content.length > 0
      ? content
      : words.map((word, at) => ({ word, key: keys[at]!, at }));
  const seen = new Set<string>();
  const terms: QueryTerm[] = [];
  for (const { word, key, at } of chosen) {
    const folded = `${key.length > 0 ? key : word.toLowerCase()}${prefixAt(at) ? "*" : ""}`;
    if (seen.has(folded)) continue;
    seen.add(folded);
    terms.push(term(word, at, key));
    if (terms.length === MAX_QUERY_TERMS) break;
  }
  return { match, terms };
}

/**
 * The terms a ranked search uses (docs/behavior/search.md#ranking-limits-and-results): under
 * `match: "any"`, the `MAX_RANKED_TERMS` rarest, by `counts[i]` (each term's matches, as a backend
 * counts them; a term without a count ranks after those with one, ties in the query's order),
 * kept in the query's order, with at most `MAX_RANKED_FORMS` forms over all of them. A question
 * holds more scaffolding than a stop-word list knows ("previous", "conversation", "remind"):
 * those words are common in any history, so the rarest terms are the ones that say what is asked.
 * `kept[i]` is the index in `analyzed.terms` of the `i`-th term returned. Under `match: "all"`
 * every term stays.
 */
export function rarestTerms(
  analyzed: AnalyzedQuery,
  counts: readonly number[] = [],
): { analyzed: AnalyzedQuery; kept: number[] } {
  if (analyzed.match === "all")
    return { analyzed, kept: analyzed.terms.map((_, at) => at) };
  const kept = rarestIndexes(analyzed.terms.length, counts);
  let budget = MAX_RANKED_FORMS;
  const terms = kept.map((at): QueryTerm => {
    const { text, forms, prefix } = analyzed.terms[at]!;
    const given = forms.slice(0, Math.max(1, budget));
    budget -= given.length;
    return prefix ? { text, forms: given, prefix } : { text, forms: given };
  });
  return { analyzed: { match: analyzed.match, terms }, kept };
}

/**
 * The FTS5 MATCH expressions of an analyzed query: `all` requires every term (a term with
 * several forms is an OR group of them), `any` (under `match: "any"` with several terms; `null`
 * otherwise, when `all` is the whole search) accepts any. Each form is one quoted phrase (inner quotes doubled, CJK characters spaced into
 * their own tokens), so operators are literal. Every form appears once in each expression, so
 * FTS5's `bm25()` gives a message the same score under both.
 */
export function fts5Expressions(analyzed: AnalyzedQuery): {
  all: string;
  any: string | null;
} {
  const phrases = analyzed.terms.map(fts5Phrases);
  const all = phrases
    .map((group) =>
      group.length === 1 ? group[0]! : `(${group.join(" OR ")})`,
    )
    .join(" AND ");
  const any =
    analyzed.match === "any" && analyzed.terms.length > 1
      ? phrases.flat().join(" OR ")
      : null;
  return { all, any };
}

/**
 * A term's forms as FTS5 phrases, one per Porter stem: forms one stem apart ("buys", "buying",
 * "buy" are all "bui") are one token to the index, and as separate phrases `bm25()` would score
 * a message holding the word once per phrase, three times over a rarer term of the query. The
 * verb table marks which forms share a stem (`verbStemKey`), checked against the stemmer by a
 * test, so the Worker bundle carries no stemmer for this.
 */
export function fts5Phrases(term: QueryTerm): string[] {
  // A prefix term is one word (`PREFIX_WORD`): FTS5 reads `"budg" *` as every token starting
  // with the stem of "budg" (the porter tokenizer stems the prefix as it stems the text).
  if (term.prefix) return [`${fts5Phrase(term.text)} *`];
  const stems = term.forms.map((form) => verbStemKey(form.toLowerCase()));
  return term.forms
    .filter((_, at) => stems.indexOf(stems[at]!) === at)
    .map(fts5Phrase);
}

/**
 * Indexes of the `MAX_RANKED_TERMS` rarest of `length` terms by `counts` (a missing count ranks
 * last; ties in order), ascending: the selection of `rarestTerms`, for a backend with terms of
 * its own shape.
 */
export function rarestIndexes(
  length: number,
  counts: readonly number[],
): number[] {
  const countOf = (at: number) => counts[at] ?? Number.POSITIVE_INFINITY;
  return Array.from({ length }, (_, at) => at)
    .sort((a, b) => countOf(a) - countOf(b) || a - b)
    .slice(0, MAX_RANKED_TERMS)
    .sort((a, b) => a - b);
}

// --- Internal helpers ---

const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/**
 * A word that can match as a prefix: letters and digits only, no CJK (a CJK term already matches
 * anywhere inside a sentence). Other terms match as usual.
 */
const PREFIX_WORD =
  /^(?:(?![\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}\p{Script_Extensions=Hangul}])[\p{L}\p{N}\p{M}])+$/u;
const UPPER_CASE = /\p{Lu}/u;
const SENTENCE_END = /[.!?;:]$/u;
/** `I` and its contractions are capitalised everywhere; that says nothing about a name. */
const FIRST_PERSON = new Set(["i", "i'm", "i've", "i'd", "i'll"]);

/**
 * A stop word of the query's languages, or a single letter, is dropped, unless it is
 * capitalised inside a sentence (a name, an acronym: "The Who", "US", "IT").
 */
function dropped(
  word: string,
  key: string,
  at: number,
  words: readonly string[],
  languages: readonly string[],
): boolean {
  if (key.length === 0) return false;
  const stop =
    Array.from(key).length === 1
      ? isStopword(key, "")
      : languages.some((language) => isStopword(key, language));
  if (!stop) return false;
  const sentenceStart = at === 0 || SENTENCE_END.test(words[at - 1]!);
  const marked =
    UPPER_CASE.test(word) && !sentenceStart && !FIRST_PERSON.has(key);
  return !marked;
}

/** The forms of a term: itself, then the other forms of an irregular verb it is one of. */
function formsOf(word: string, key: string): readonly string[] {
  if (!/^[a-z]+$/u.test(key)) return [word];
  const forms = verbForms(key);
  if (forms.length === 1) return [word];
  return [word, ...forms.slice(1)];
}

/** One form as an FTS5 phrase: quoted (inner quotes doubled), CJK characters spaced. */
export function fts5Phrase(form: string): string {
  return `"${spaceCjk(form).replaceAll('"', '""')}"`;
}
