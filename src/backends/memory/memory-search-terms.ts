import {
  foldText,
  hasCjk,
  wordTokens,
} from "../../session/text/search-terms.js";
import type { AnalyzedQuery } from "../../session/text/query-analysis.js";
import {
  cjkCharacters,
  mergedRows,
  occurrences,
  prefixOccurrences,
  type IndexedRow,
  type TextCorpus,
} from "./memory-text-index.js";

/** How often a term, or one form of it, occurs in an indexed row (0: not at all). */
export type Counter = (entry: IndexedRow) => number;

/** One searchable term of a query: how to count it in a row, and where its rows are. */
export interface TermPlan {
  count: Counter;
  /** Rows that may hold the term, by ascending seq: every row that does, and maybe others. */
  candidates(corpus: TextCorpus): readonly IndexedRow[];
  /** Every candidate holds the term (each form is one word token): nothing to check. */
  exact: boolean;
}

/**
 * One plan per searchable term of `analyzed`, in its order. A term with no letter or digit can
 * never be a token; it is left out, as FTS5 ignores it, so plans and terms may differ in number.
 */
export function termPlans(analyzed: AnalyzedQuery): TermPlan[] {
  const plans: TermPlan[] = [];
  for (const term of analyzed.terms) {
    // Forms one stem apart ("buys", "buying", "buy") are one token here: each is counted once.
    const prefix = term.prefix ? prefixPlan(term.text) : null;
    if (prefix) {
      plans.push(prefix);
      continue;
    }
    const forms = [
      ...new Map(
        term.forms.map((form) => [
          wordTokens(foldText(form)).join(" ") || form,
          form,
        ]),
      ).values(),
    ].flatMap(formPlan);
    if (forms.length === 0) continue;
    const only = forms.length === 1 ? forms[0]! : null;
    plans.push({
      count: only
        ? only.count
        : (entry) => {
            let count = 0;
            for (const form of forms) count += form.count(entry);
            return count;
          },
      candidates: (corpus) =>
        only
          ? only.candidates(corpus)
          : mergedRows(forms.map((form) => form.candidates(corpus))),
      exact: forms.every((form) => form.exact),
    });
  }
  return plans;
}

// --- Internal helpers ---

/**
 * A term that matches as a prefix (docs/search.md#prefix-search): every row holding a token that
 * starts with the term's stem, as FTS5 and PostgreSQL match `budg*` and `budg:*` (the tokens are
 * stems, so the prefix is stemmed too: "meetings" finds "meeting"). `null` for a term that is
 * not one word token: it matches as a whole word.
 */
function prefixPlan(text: string): TermPlan | null {
  const tokens = wordTokens(foldText(text));
  if (tokens.length !== 1) return null;
  const prefix = tokens[0]!;
  return {
    count: (entry) => prefixOccurrences(entry, prefix),
    candidates: (corpus) => corpus.withTokenPrefix(prefix),
    exact: true,
  };
}

/**
 * A CJK form matches as a substring of the folded text, found among the rows holding its rarest
 * CJK character; any other form, as word tokens that must all be there (each counted), found
 * among the rows holding its rarest token.
 */
function formPlan(form: string): TermPlan[] {
  const folded = foldText(form);
  if (hasCjk(folded)) {
    const characters = [...cjkCharacters(folded)];
    return [
      {
        // A row without a CJK character keeps no folded text: it cannot hold the form.
        count: (entry) =>
          entry.folded === null ? 0 : countOccurrences(entry.folded, folded),
        candidates: (corpus) =>
          shortest(characters.map((c) => corpus.withCharacter(c))),
        exact: false,
      },
    ];
  }
  const tokens = wordTokens(folded);
  if (tokens.length === 0) return [];
  return [
    {
      count: (entry) => {
        let count = 0;
        for (const token of tokens) {
          const found = occurrences(entry, token);
          if (found === 0) return 0;
          count += found;
        }
        return count;
      },
      candidates: (corpus) =>
        shortest(tokens.map((token) => corpus.withToken(token))),
      exact: tokens.length === 1,
    },
  ];
}

function shortest(
  lists: ReadonlyArray<readonly IndexedRow[]>,
): readonly IndexedRow[] {
  return lists.reduce((best, list) =>
    list.length < best.length ? list : best,
  );
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (
    let at = text.indexOf(needle);
    at !== -1;
    at = text.indexOf(needle, at + needle.length)
  ) {
    count++;
  }
  return count;
}
