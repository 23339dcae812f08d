import {
  foldText,
  hasCjk,
  wordTokens,
} from "../../session/core/search-terms.js";
import {
  analyzeQuery,
  rarestIndexes,
  type AnalyzedQuery,
} from "../../session/core/query-analysis.js";
import {
  normalizeSearchLimit,
  rankWindow,
} from "../../session/core/search-limit.js";
import { rareTermArm } from "../../session/core/rare-terms.js";
import { withinTimeRange } from "../../session/core/search-options.js";
import type { TextSearchOptions } from "../../session/contracts/types.js";
import type { MemoryRow } from "./memory-store.js";

/**
 * The in-memory search of docs/behavior/search.md. A CJK term matches as a substring of the
 * text; other terms match word tokens after folding and Porter stemming. Ranked any-term by
 * default: messages holding every term first, then those holding some, each group by BM25 over
 * the searched rows (rarer terms weigh more), ties newest first; `match: "all"` keeps only the
 * first group. As on SQLite, each group ranks its newest matches within the rank window.
 *
 * @param rows the session's rows in insertion order.
 * @param limit normalized with `normalizeSearchLimit`.
 */
export function searchRows(
  rows: readonly MemoryRow[],
  query: string,
  limit: number | undefined,
  options: TextSearchOptions = {},
): MemoryRow[] {
  const count = normalizeSearchLimit(limit);
  return rankHits(scoreRows(rows, query, options, count), count).map(
    (hit) => hit.row,
  );
}

/** A matching row: its BM25 score and whether it holds every term. */
export interface ScoredRow {
  row: MemoryRow;
  score: number;
  every: boolean;
  /** True when it holds one of the query's rare terms (core/rare-terms.ts): always a candidate. */
  rare: boolean;
}

/**
 * The best `count` hits, as the SQL backends rank them: candidates are the newest
 * `rankWindow(count)` hits holding every term and the newest `rankWindow(count)` of all hits;
 * every-term hits first, then by score, ties newest first. A hit holding a rare term
 * (`rareTermArm`, for the rank window of `rareWindow`) is a scored candidate however old, as on
 * SQLite. Only those
 * are scored (on SQLite the score's term statistics are paid once that way): every-term hits
 * older than the window follow the scored every-term hits, newest first.
 */
export function rankHits<T extends ScoredRow>(hits: T[], count: number): T[] {
  const window = rankWindow(count);
  const scored = new Set<T>(newestWithin([...hits], window));
  for (const hit of hits) if (hit.rare) scored.add(hit);
  const chosen = new Set<T>(scored);
  for (const hit of newestWithin(
    hits.filter((hit) => hit.every),
    window,
  ))
    chosen.add(hit);
  return [...chosen]
    .sort(
      (a, b) =>
        Number(b.every) - Number(a.every) ||
        Number(scored.has(b)) - Number(scored.has(a)) ||
        (scored.has(a) ? b.score - a.score : 0) ||
        b.row.seq - a.row.seq,
    )
    .slice(0, count);
}

/** The `window` hits with the highest `seq` (docs/behavior/search.md#ranking-limits-and-results). */
export function newestWithin<T extends { row: { seq: number } }>(
  hits: T[],
  window: number,
): T[] {
  if (hits.length <= window) return hits;
  return hits.sort((a, b) => b.row.seq - a.row.seq).slice(0, window);
}

/**
 * Every row matching the query under `options.match` (default any-term) and `since`/`until`,
 * scored by BM25 with statistics over all of `rows` (unsorted). Under `match: "all"` only rows
 * holding every term are returned. `limit` (normalized) sets the rank window the rare terms are
 * chosen for (`rareTermArm`).
 */
export function scoreRows(
  rows: readonly MemoryRow[],
  query: string,
  options: TextSearchOptions = {},
  limit?: number,
): ScoredRow[] {
  const analyzed = analyzeQuery(query, options.match ?? "any");
  if (analyzed === null) return [];
  const matchers = termMatchers(analyzed);
  if (matchers.length === 0) return [];
  const found: Array<{ row: MemoryRow; counts: number[]; length: number }> = [];
  const terms = matchers.length;
  const documentFrequency = new Array<number>(terms).fill(0);
  // The scan visits every row of the session: it allocates only for a row that matches.
  const counts = new Array<number>(terms).fill(0);
  const timed = options.since !== undefined || options.until !== undefined;
  let documents = 0;
  let totalLength = 0;
  for (const row of rows) {
    const text = row.indexed ?? row.text;
    if (text.length === 0) continue;
    const indexed = (row.searchCache ??= index(text));
    documents++;
    totalLength += indexed.length;
    if (timed && !withinTimeRange(row.createdAt, options)) continue;
    let matched = false;
    for (let at = 0; at < terms; at++) {
      const count = matchers[at]!(indexed);
      counts[at] = count;
      if (count > 0) {
        matched = true;
        documentFrequency[at]!++;
      }
    }
    if (matched)
      found.push({ row, counts: counts.slice(), length: indexed.length });
  }
  const averageLength = documents > 0 ? totalLength / documents : 1;
  // The rarest terms are the ranked ones (`rarestTerms`), as on the other backends.
  const kept =
    analyzed.match === "any"
      ? rarestIndexes(matchers.length, documentFrequency)
      : matchers.map((_, at) => at);
  const rankedFrequency = kept.map((at) => documentFrequency[at]!);
  const weights = rankedFrequency.map((frequency) =>
    Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5)),
  );
  const arm = rareTermArm(
    analyzed.match,
    rankedFrequency,
    rankWindow(normalizeSearchLimit(limit)),
  );
  const rareTerms = arm.rare === null ? null : new Set(arm.rare);
  const everyRare =
    arm.rare === null &&
    arm.anyWindow > rankWindow(normalizeSearchLimit(limit));
  const hits: ScoredRow[] = [];
  for (const match of found) {
    const { row, length } = match;
    const norm = K1 * (1 - B + (B * Math.max(length, 1)) / averageLength);
    let held = 0;
    let rare = everyRare;
    let score = 0;
    for (let at = 0; at < kept.length; at++) {
      const count = match.counts[kept[at]!]!;
      if (count === 0) continue;
      held++;
      if (rareTerms?.has(at) === true) rare = true;
      score += (weights[at]! * (count * (K1 + 1))) / (count + norm);
    }
    if (held === 0) continue;
    const every = held === kept.length;
    if (analyzed.match === "all" && !every) continue;
    hits.push({ row, score, every, rare });
  }
  return hits;
}

// --- Internal helpers ---

/** BM25's usual parameters, as FTS5's `bm25()` uses them. */
const K1 = 1.2;
const B = 0.75;

type Indexed = NonNullable<MemoryRow["searchCache"]>;
type Matcher = (indexed: Indexed) => number;

function index(text: string): Indexed {
  const folded = foldText(text);
  const tokens = new Map<string, number>();
  let length = 0;
  for (const token of wordTokens(folded)) {
    tokens.set(token, (tokens.get(token) ?? 0) + 1);
    length++;
  }
  return { folded, tokens, length };
}

/** One matcher per term: how often any of its forms occurs in a row (0: not at all). */
function termMatchers(analyzed: AnalyzedQuery): Matcher[] {
  const matchers: Matcher[] = [];
  for (const term of analyzed.terms) {
    // Forms one stem apart ("buys", "buying", "buy") are one token here: each is counted once.
    const forms = [
      ...new Map(
        term.forms.map((form) => [
          wordTokens(foldText(form)).join(" ") || form,
          form,
        ]),
      ).values(),
    ].flatMap(formMatcher);
    // A term with no letter or digit can never be a token; it is ignored, as FTS5 ignores it.
    if (forms.length === 0) continue;
    matchers.push((indexed) => {
      let count = 0;
      for (const form of forms) count += form(indexed);
      return count;
    });
  }
  return matchers;
}

function formMatcher(form: string): Matcher[] {
  const folded = foldText(form);
  if (hasCjk(folded))
    return [(indexed) => countOccurrences(indexed.folded, folded)];
  const tokens = wordTokens(folded);
  if (tokens.length === 0) return [];
  return [
    (indexed) => {
      let count = 0;
      for (const token of tokens) {
        const found = indexed.tokens.get(token) ?? 0;
        if (found === 0) return 0;
        count += found;
      }
      return count;
    },
  ];
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
