import type {
  MatchMode,
  PrefixMode,
  SessionMessage,
} from "../../session/contracts/types.js";
import { searchableText } from "../../session/messages/message-codec.js";
import { isToolPart } from "../../session/messages/tool-parts.js";
import { analyzeQuery } from "../../session/text/query-analysis.js";
import {
  hasCjk,
  queryTerms,
  spaceCjk,
} from "../../session/text/search-terms.js";

/**
 * Characters of a message's text that are indexed. A `tsvector` holds at most 1 MB, and text
 * with many distinct words reaches that at about 1.3 MB; 200,000 characters stay well below
 * it whatever the text, so an insert never fails on its index (docs/postgres.md).
 */
export const MAX_INDEXED_CHARACTERS = 200_000;

/**
 * The normalized search text stored in `text_content` (messages) and `search_text` (knowledge
 * entries): lower case, diacritics of Latin letters removed (as FTS5 `unicode61` does), every
 * CJK character spaced into its own token (docs/behavior/search.md), NUL (which PostgreSQL text cannot hold)
 * turned into a space, cut at `MAX_INDEXED_CHARACTERS`. Done in JavaScript, so it does not
 * depend on the database locale or on extensions.
 */
export function indexText(text: string): string {
  const folded = spaceCjk(foldLatin(text.replaceAll("\u0000", " ")));
  if (folded.length <= MAX_INDEXED_CHARACTERS) return folded;
  const cut = folded.slice(0, MAX_INDEXED_CHARACTERS);
  // Never leave half a surrogate pair at the end.
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/**
 * The `arbor_meta` key present when the store indexes tool outputs
 * (docs/behavior/search.md#tool-outputs).
 */
export const TOOL_OUTPUTS_KEY = "index_tool_outputs";

/** Whether the store indexes tool outputs, as an SQL condition. */
export const TOOL_OUTPUTS_SQL = `EXISTS (SELECT 1 FROM arbor_meta WHERE key = '${TOOL_OUTPUTS_KEY}')`;

/**
 * The search text a write stores, chosen inside the writing statement by the store's setting:
 * its two parameters are `indexedTextParams(message)`. Read in the statement itself, so a change
 * of the setting (which holds the message table's lock, postgres-search-index.ts) commits wholly
 * before or after the write, and re-indexes it when before.
 */
export const INDEXED_TEXT_SQL = `COALESCE((SELECT ?::text WHERE ${TOOL_OUTPUTS_SQL}), ?)`;

/**
 * The parameters of `INDEXED_TEXT_SQL`: the search text with tool outputs (`null` when the
 * message has none, the common case), then the text without.
 */
export function indexedTextParams(
  message: SessionMessage,
): [string | null, string] {
  const text = searchableText(message);
  if (!message.parts.some(isToolPart)) return [null, indexText(text)];
  const full = searchableText(message, true);
  return [full === text ? null : indexText(full), indexText(text)];
}

/** One query term, ready for SQL. */
export interface SearchTerm {
  /** Text for `phraseto_tsquery` (the whole term must appear as a phrase). */
  phrase: string;
  /**
   * CJK runs of two or more characters, in their indexed (spaced) form: each must occur in the
   * stored search text as a substring, since the tokens alone do not encode adjacency reliably
   * (a `tsvector` keeps at most 256 positions per lexeme and none past 16,383).
   */
  substrings: string[];
  /** The term matches as the start of a word: `to_tsquery(<config>, prefixTsquery(phrase))`. */
  prefix?: true;
}

/**
 * The terms of a query (docs/behavior/search.md): split on whitespace (which of them count is the query analysis's), operator
 * characters are ordinary characters. Terms with no letter or digit can never match a token and
 * are dropped. `[]` when nothing searchable is left.
 */
export function searchTerms(query: unknown): SearchTerm[] {
  const terms = queryTerms(
    typeof query === "string" ? query.replaceAll("\u0000", " ") : query,
  ).filter((term) => WORD_CHARACTER.test(term));
  const unique = [...new Set(terms.map((term) => indexText(term).trim()))];
  return unique.slice(0, MAX_TERMS).map(searchTerm);
}

/** A query term with its forms, ready for SQL: it matches when any form does. */
export interface RankedTerm {
  forms: SearchTerm[];
}

/**
 * The terms of a message search under `match` (`analyzeQuery`): for `"all"` every term as
 * written (as `searchTerms`), for `"any"` the terms that count, each with its forms. `[]` when
 * nothing searchable is left.
 */
export function rankedTerms(
  query: unknown,
  match: MatchMode = "any",
  prefix?: PrefixMode,
): RankedTerm[] {
  const analyzed = analyzeQuery(
    typeof query === "string" ? query.replaceAll("\u0000", " ") : query,
    match,
    prefix,
  );
  if (analyzed === null) return [];
  const seen = new Set<string>();
  const terms: RankedTerm[] = [];
  for (const term of analyzed.terms) {
    if (term.prefix) {
      // One word of letters and digits (query-analysis.ts), folded as the stored text is.
      const phrase = indexText(term.text).trim();
      const key = `${phrase}*`;
      if (phrase.length === 0 || seen.has(key)) continue;
      seen.add(key);
      terms.push({ forms: [{ phrase, substrings: [], prefix: true }] });
      if (terms.length === MAX_TERMS) break;
      continue;
    }
    const forms = [
      ...new Set(term.forms.map((form) => indexText(form).trim())),
    ].filter((form) => form.length > 0);
    const key = forms.join(" ");
    if (forms.length === 0 || seen.has(key)) continue;
    seen.add(key);
    terms.push({ forms: forms.map(searchTerm) });
    if (terms.length === MAX_TERMS) break;
  }
  return terms;
}

/**
 * SQL for the `tsquery` of the terms, ANDed: `phraseto_tsquery(<config>, ?) && …`, with one
 * bound parameter per term. `configSql` is the SQL expression of the configuration.
 */
export function tsquerySql(terms: readonly SearchTerm[], configSql: string) {
  return terms
    .map((term) =>
      term.prefix
        ? `to_tsquery(${configSql}, ?)`
        : hasCjk(term.phrase)
          ? // Spaced CJK characters become an AND of single characters; adjacency is checked
            // by the substring condition.
            `plainto_tsquery(${configSql}, ?)`
          : `phraseto_tsquery(${configSql}, ?)`,
    )
    .join(" && ");
}

/**
 * The function and text of one term's `tsquery`: `to_tsquery` of `'budg':*` for a prefix term
 * (every lexeme starting with the stem of "budg"; the text holds letters and digits only, so the
 * quotes cannot be broken out of), `plainto_tsquery` for spaced CJK (an AND of its characters;
 * adjacency is checked apart), else `phraseto_tsquery` of the term.
 */
export function termTsquery(term: SearchTerm): {
  fn: "to_tsquery" | "plainto_tsquery" | "phraseto_tsquery";
  text: string;
} {
  if (term.prefix) return { fn: "to_tsquery", text: `'${term.phrase}':*` };
  return {
    fn: hasCjk(term.phrase) ? "plainto_tsquery" : "phraseto_tsquery",
    text: term.phrase,
  };
}

// --- Internal helpers ---

function searchTerm(term: string): SearchTerm {
  return { phrase: term, substrings: hasCjk(term) ? cjkRuns(term) : [] };
}

const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/** More terms than this are ignored: a query is text typed by a person or a model. */
const MAX_TERMS = 64;

const CJK_RUN =
  /(?:\s*[\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}\p{Script_Extensions=Hangul}]\s*){2,}/gu;

function cjkRuns(spacedTerm: string): string[] {
  return [...spacedTerm.matchAll(CJK_RUN)].map((match) => match[0].trim());
}

function foldLatin(text: string): string {
  const lower = text.toLowerCase();
  // Only letters with a decomposition can carry a combining mark after NFD.
  if (!/[^\u0000-\u007f]/.test(lower)) return lower;
  return lower
    .normalize("NFD")
    .replace(/(\p{Script=Latin})\p{M}+/gu, "$1")
    .normalize("NFC");
}
