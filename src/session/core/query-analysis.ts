/**
 * What a text query asks for, shared by every backend (docs/behavior/search.md): its terms, and
 * for ranked any-term search (`match: "any"`, the default) which of them count. Stop words and
 * question scaffolding of the language the query reads as are dropped ("When did Caroline go to
 * the support group?" → `Caroline`, `go`, `support`, `group`), numbers and capitalised words
 * inside a sentence never are, and an irregular English verb is widened to all its forms
 * (`go` → `went`, `gone`, …). `match: "all"` keeps every whitespace-separated term, as written.
 */
import type { MatchMode } from "../contracts/types.js";
import { verbForms } from "./irregular-verbs.js";
import { queryTerms, spaceCjk } from "./search-terms.js";
import { isStopword, stopwordKey, stopwordLanguages } from "./stopwords.js";

/** One term of a query. */
export interface QueryTerm {
  /** The term as written. */
  text: string;
  /** Forms any one of which matches the term: `text` first, then other forms of its verb. */
  forms: readonly string[];
}

/** A query's terms and how they must match. */
export interface AnalyzedQuery {
  match: MatchMode;
  /** Never empty: `analyzeQuery` returns `null` when nothing searchable is left. */
  terms: readonly QueryTerm[];
}

/**
 * Terms a ranked any-term search uses at most; later ones are ignored. Each term is one more
 * posting list an OR query walks, and a question rarely has more content words than this.
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
): AnalyzedQuery | null {
  const words = queryTerms(query).filter((term) => WORD_CHARACTER.test(term));
  if (words.length === 0) return null;
  if (match === "all")
    return { match, terms: words.map((text) => ({ text, forms: [text] })) };
  const keys = words.map(stopwordKey);
  const languages = stopwordLanguages(keys);
  const content = words
    .map((word, at) => ({ word, key: keys[at]!, at }))
    .filter(({ word, key, at }) => !dropped(word, key, at, words, languages));
  const chosen =
    content.length > 0
      ? content
      : words.map((word, at) => ({ word, key: keys[at]!, at }));
  const seen = new Set<string>();
  const terms: QueryTerm[] = [];
  let forms = 0;
  for (const { word, key } of chosen) {
    const folded = key.length > 0 ? key : word.toLowerCase();
    if (seen.has(folded)) continue;
    seen.add(folded);
    const all = formsOf(word, key);
    const kept = all.slice(0, Math.max(1, MAX_RANKED_FORMS - forms));
    forms += kept.length;
    terms.push({ text: word, forms: kept });
    if (terms.length === MAX_RANKED_TERMS) break;
  }
  return { match, terms };
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
  const groups = analyzed.terms.map((term) =>
    term.forms.length === 1
      ? fts5Phrase(term.forms[0]!)
      : `(${term.forms.map(fts5Phrase).join(" OR ")})`,
  );
  const all = groups.join(" AND ");
  const any =
    analyzed.match === "any" && analyzed.terms.length > 1
      ? analyzed.terms
          .flatMap((term) => term.forms.map(fts5Phrase))
          .join(" OR ")
      : null;
  return { all, any };
}

// --- Internal helpers ---

const WORD_CHARACTER = /[\p{L}\p{N}]/u;
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
    [...key].length === 1
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
