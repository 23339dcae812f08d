import {
  analyzeQuery,
  rarestIndexes,
} from "../../session/text/query-analysis.js";
import {
  normalizeSearchLimit,
  RANK_WINDOW,
  rankTail,
} from "../../session/text/search-limit.js";
import { rareTermArm } from "../../session/text/rare-terms.js";
import { withinTimeRange } from "../../session/text/search-options.js";
import type {
  MatchMode,
  TextSearchOptions,
} from "../../session/contracts/types.js";
import {
  termPlans,
  type Counter,
  type TermPlan,
} from "./memory-search-terms.js";
import type { IndexedRow, TextCorpus } from "./memory-text-index.js";

/**
 * The in-memory search of docs/behavior/search.md over a text index (`MemoryTextIndex`, or
 * several sessions' together). A CJK term matches as a substring of the text; other terms match
 * word tokens after folding and Porter stemming. Ranked any-term by default: messages holding
 * every term first, then those holding some, each group by BM25 over the searched rows (rarer
 * terms weigh more), ties newest first; `match: "all"` keeps only the first group.
 *
 * As on SQLite, the candidates are the newest `RANK_WINDOW` hits holding every term and the
 * newest `RANK_WINDOW` of all hits; a hit holding a rare term (`rareTermArm`) is a scored
 * candidate however old. Only those are scored (on SQLite the score's term statistics are paid
 * once that way): every-term hits older than the window follow the scored every-term hits,
 * newest first. A `limit` past the window reads that many more of the newest hits
 * (`rankTail`), unscored, so the first results never depend on `limit`. The postings are sorted
 * by seq, so the newest hits are read from their ends and a search costs the postings of its
 * terms, not the session.
 *
 * @param limit normalized with `normalizeSearchLimit`.
 */
export function searchText(
  corpus: TextCorpus,
  query: string,
  limit: number | undefined,
  options: TextSearchOptions = {},
): IndexedRow[] {
  const count = normalizeSearchLimit(limit);
  const analyzed = analyzeQuery(query, options.match ?? "any", options.prefix);
  if (analyzed === null) return [];
  const terms = termPlans(analyzed);
  if (terms.length === 0) return [];
  const window = options.rankWindow ?? RANK_WINDOW;
  const ranked = rankedTerms(corpus, analyzed.match, terms, window, options);
  return candidates(ranked, analyzed.match, window, rankTail(window, count))
    .sort(
      (a, b) =>
        Number(b.every) - Number(a.every) ||
        Number(b.scored) - Number(a.scored) ||
        (a.scored ? b.score - a.score : 0) ||
        b.entry.row.seq - a.entry.row.seq,
    )
    .slice(0, count)
    .map(({ entry }) => entry);
}

// --- Internal helpers ---

/** BM25's usual parameters, as FTS5's `bm25()` uses them. */
const K1 = 1.2;
const B = 0.75;

/** A candidate: its BM25 score, whether it holds every ranked term, whether it is scored. */
interface Hit {
  entry: IndexedRow;
  score: number;
  every: boolean;
  scored: boolean;
}

/** The terms a search ranks by (`kept`), each with its matches and what scoring needs of it. */
interface RankedTerms {
  /** Each term's matching rows, by ascending seq. */
  lists: ReadonlyArray<readonly IndexedRow[]>;
  counters: readonly Counter[];
  weights: readonly number[];
  /** Positions of the rare terms (`rareTermArm`): every hit holding one is scored. */
  rare: readonly number[];
  /** Every term is rare: every hit is a scored candidate. */
  everyRare: boolean;
  averageLength: number;
}

/**
 * The matches of every term, and the ranked ones among them: under `match: "any"` the rarest
 * (`rarestIndexes`, as the other backends rank), with BM25 weights from the corpus statistics.
 */
function rankedTerms(
  corpus: TextCorpus,
  match: MatchMode,
  terms: readonly TermPlan[],
  window: number,
  options: TextSearchOptions,
): RankedTerms {
  const timed = options.since !== undefined || options.until !== undefined;
  const matches = terms.map((term) =>
    termMatches(corpus, term, timed ? options : null),
  );
  const documentFrequency = matches.map((list) => list.length);
  const kept =
    match === "any"
      ? rarestIndexes(terms.length, documentFrequency)
      : terms.map((_, at) => at);
  const rankedFrequency = kept.map((at) => documentFrequency[at]!);
  const documents = corpus.documents;
  const arm = rareTermArm(match, rankedFrequency, window);
  return {
    lists: kept.map((at) => matches[at]!),
    counters: kept.map((at) => terms[at]!.count),
    weights: rankedFrequency.map((frequency) =>
      Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5)),
    ),
    rare: arm.rare ?? [],
    everyRare: arm.rare === null && arm.anyWindow > window,
    averageLength: documents > 0 ? corpus.totalLength / documents : 1,
  };
}

/**
 * The candidates, scored: the newest `window` hits (scored), the hits holding a rare term
 * (scored), and the newest `window` hits holding every term. Under `match: "all"` only those
 * are hits. With a `tail`, the newest `tail` hits of each kind join unscored.
 */
function candidates(
  ranked: RankedTerms,
  match: MatchMode,
  window: number,
  tail: number,
): Hit[] {
  const { lists, counters } = ranked;
  const rare = new Set(ranked.rare);
  const hits = new Map<IndexedRow, Hit>();
  const hit = (entry: IndexedRow): Hit => {
    let found = hits.get(entry);
    if (!found) {
      found = scoreEntry(entry, ranked, rare);
      hits.set(entry, found);
    }
    return found;
  };
  const newestEvery = newestHoldingAll(lists, counters, window);
  const newest =
    match === "all" ? newestEvery : newestHoldingAny(lists, window);
  for (const entry of newest) hit(entry).scored = true;
  const holdingRare = ranked.everyRare
    ? newestHoldingAny(lists, Number.POSITIVE_INFINITY)
    : [...rare].flatMap((at) => lists[at]!);
  for (const entry of holdingRare) hit(entry).scored = true;
  for (const entry of newestEvery) hit(entry);
  if (tail > 0) {
    const olderEvery = newestHoldingAll(lists, counters, tail);
    const older = match === "all" ? olderEvery : newestHoldingAny(lists, tail);
    for (const entry of [...olderEvery, ...older]) hit(entry);
  }
  return [...hits.values()];
}

/** BM25 of `entry` over the ranked terms; scored when it holds a rare term. */
function scoreEntry(
  entry: IndexedRow,
  ranked: RankedTerms,
  rare: ReadonlySet<number>,
): Hit {
  const { counters, weights } = ranked;
  const norm =
    K1 * (1 - B + (B * Math.max(entry.length, 1)) / ranked.averageLength);
  let held = 0;
  let scored = ranked.everyRare;
  let score = 0;
  for (let at = 0; at < counters.length; at++) {
    const count = counters[at]!(entry);
    if (count === 0) continue;
    held++;
    if (rare.has(at)) scored = true;
    score += (weights[at]! * (count * (K1 + 1))) / (count + norm);
  }
  return { entry, score, every: held === counters.length, scored };
}

/**
 * The rows holding `term`, by ascending seq, within `range` when one is given. A term whose
 * postings are exactly its matches (`TermPlan.exact`) and no range: its postings themselves.
 */
function termMatches(
  corpus: TextCorpus,
  term: TermPlan,
  range: TextSearchOptions | null,
): readonly IndexedRow[] {
  const rows = term.candidates(corpus);
  if (term.exact && range === null) return rows;
  return rows.filter(
    (entry) =>
      (term.exact || term.count(entry) > 0) &&
      (range === null || withinTimeRange(entry.row.createdAt, range)),
  );
}

/** The newest `window` rows of any of `lists` (each by ascending seq): a merge from their ends. */
function newestHoldingAny(
  lists: ReadonlyArray<readonly IndexedRow[]>,
  window: number,
): IndexedRow[] {
  const heads = lists.map((list) => list.length - 1);
  const found: IndexedRow[] = [];
  while (found.length < window) {
    let newest: IndexedRow | undefined;
    for (let at = 0; at < lists.length; at++) {
      const entry = lists[at]![heads[at]!];
      if (entry && (!newest || entry.row.seq > newest.row.seq)) newest = entry;
    }
    if (!newest) break;
    found.push(newest);
    for (let at = 0; at < lists.length; at++)
      if (lists[at]![heads[at]!] === newest) heads[at]!--;
  }
  return found;
}

/**
 * The newest `window` rows in every one of `lists`: the shortest list read from its end, each of
 * its rows checked against the other terms' counters (its rows are within the time range).
 */
function newestHoldingAll(
  lists: ReadonlyArray<readonly IndexedRow[]>,
  counters: readonly Counter[],
  window: number,
): IndexedRow[] {
  let shortest = 0;
  for (let at = 1; at < lists.length; at++)
    if (lists[at]!.length < lists[shortest]!.length) shortest = at;
  const list = lists[shortest]!;
  const found: IndexedRow[] = [];
  for (let at = list.length - 1; at >= 0 && found.length < window; at--) {
    const entry = list[at]!;
    if (counters.every((counter) => counter(entry) > 0)) found.push(entry);
  }
  return found;
}
