import {
  foldText,
  hasCjk,
  queryTerms,
  wordTokens,
} from "../../session/core/search-terms.js";
import {
  normalizeSearchLimit,
  rankWindow,
} from "../../session/core/search-limit.js";
import { withinTimeRange } from "../../session/core/search-options.js";
import type { TextSearchOptions } from "../../session/contracts/types.js";
import type { MemoryRow } from "./memory-store.js";

/**
 * The in-memory search of docs/behavior/search.md: every query term must match. A CJK term matches as a
 * substring of the text; other terms match word tokens after folding and light stemming.
 * The newest matches within the rank window (`rankWindow`), ranked by match count, ties newest first.
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
  return newestWithin(scoreRows(rows, query, options), rankWindow(count))
    .sort((a, b) => b.score - a.score || b.row.seq - a.row.seq)
    .slice(0, count)
    .map((hit) => hit.row);
}

/** The `window` hits with the highest `seq` (docs/behavior/search.md#ranking-limits-and-results). */
export function newestWithin<T extends { row: { seq: number } }>(
  hits: T[],
  window: number,
): T[] {
  if (hits.length <= window) return hits;
  return hits.sort((a, b) => b.row.seq - a.row.seq).slice(0, window);
}

/** Every row matching all query terms, with its match count (unsorted). */
export function scoreRows(
  rows: readonly MemoryRow[],
  query: string,
  options: TextSearchOptions = {},
): Array<{ row: MemoryRow; score: number }> {
  const matchers = queryTerms(query).flatMap(termMatcher);
  if (matchers.length === 0) return [];
  const hits: Array<{ row: MemoryRow; score: number }> = [];
  for (const row of rows) {
    if (row.text.length === 0) continue;
    if (!withinTimeRange(row.createdAt, options)) continue;
    const indexed = (row.searchCache ??= index(row.text));
    let score = 0;
    for (const matcher of matchers) {
      const count = matcher(indexed);
      if (count === 0) {
        score = 0;
        break;
      }
      score += count;
    }
    if (score > 0) hits.push({ row, score });
  }
  return hits;
}

// --- Internal helpers ---

type Indexed = NonNullable<MemoryRow["searchCache"]>;
type Matcher = (indexed: Indexed) => number;

function index(text: string): Indexed {
  const folded = foldText(text);
  const tokens = new Map<string, number>();
  for (const token of wordTokens(folded))
    tokens.set(token, (tokens.get(token) ?? 0) + 1);
  return { folded, tokens };
}

function termMatcher(term: string): Matcher[] {
  const folded = foldText(term);
  if (hasCjk(folded))
    return [(indexed) => countOccurrences(indexed.folded, folded)];
  const tokens = wordTokens(folded);
  // A term with no letter or digit can never be a token; it is ignored, as FTS5 ignores it.
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
