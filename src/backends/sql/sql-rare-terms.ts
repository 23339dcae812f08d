import {
  fts5Expressions,
  fts5Phrases,
  rarestTerms,
  type AnalyzedQuery,
} from "../../session/text/query-analysis.js";
import { rareCountCap, rareTermArm } from "../../session/text/rare-terms.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";

/** The FTS5 expressions of a ranked search, and its rare-term arm. */
export interface RankedExpressions {
  /** Every ranked term (a term's forms an OR group). */
  all: string;
  /** Any ranked term; `null` when `all` is the whole search (one term, or `match: "all"`). */
  any: string | null;
  /** The OR of the rarest terms, or `null` for no rare-term arm (text/rare-terms.ts). */
  rare: string | null;
  /** Rows the rare-term arm brings at most. */
  rareLimit: number;
  /** The any-term window: every match when every term is rare. */
  anyWindow: number;
}

/**
 * The expressions of a search on FTS5 (docs/behavior/search.md#ranking-limits-and-results): under
 * `match: "any"` with several terms, each term's matches over the whole index are counted (one
 * statement, each count stopping past `rareCountCap(window)`, so a common term reads at most that
 * many postings, a small share of what `bm25()`'s term statistics read anyway); the rarest terms
 * are the ones ranked (`rarestTerms`), and the rarest of those, while their matches together stay
 * within the cap, make the rare-term arm (`rareTermArm`).
 */
export function rankedExpressions(
  agent: SqlProvider,
  analyzed: AnalyzedQuery,
  window: number,
): RankedExpressions {
  if (analyzed.match !== "any" || analyzed.terms.length < 2) {
    const { all, any } = fts5Expressions(rarestTerms(analyzed).analyzed);
    return { all, any, rare: null, rareLimit: 0, anyWindow: window };
  }
  const groups = analyzed.terms.map((term) => fts5Phrases(term).join(" OR "));
  const rows = agent.sql<{ at: number; n: number }>`
    SELECT CAST(j.key AS INTEGER) AS at,
      (SELECT COUNT(*) FROM (SELECT 1 FROM assistant_fts WHERE assistant_fts MATCH j.value
        LIMIT ${rareCountCap(window) + 1})) AS n
    FROM json_each(${JSON.stringify(groups)}) AS j`;
  const counts = groups.map(() => Number.POSITIVE_INFINITY);
  for (const row of rows) counts[Number(row.at)] = Number(row.n);
  const ranked = rarestTerms(analyzed, counts);
  const { all, any } = fts5Expressions(ranked.analyzed);
  const arm = rareTermArm(
    "any",
    ranked.kept.map((at) => counts[at]!),
    window,
  );
  return {
    all,
    any,
    rare:
      arm.rare
        ?.flatMap((at) => fts5Phrases(ranked.analyzed.terms[at]!))
        .join(" OR ") ?? null,
    rareLimit: arm.rareLimit,
    anyWindow: arm.anyWindow,
  };
}
