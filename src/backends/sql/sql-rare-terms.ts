import {
  fts5Phrase,
  type AnalyzedQuery,
} from "../../session/core/query-analysis.js";
import { rareCountCap, rareTermArm } from "../../session/core/rare-terms.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";

/**
 * The rare-term arm of a ranked any-term search on FTS5 (docs/behavior/search.md#ranking-limits-and-results,
 * core/rare-terms.ts): the OR of the query's rarest terms, or `null` when there is none, or when
 * every term is one (then the any-term window itself holds all their matches, `anyWindow`).
 * Each term's count, over the whole index, stops past `rareCountCap(window)`, so the counting
 * reads at most that many postings per term, a small share of what `bm25()`'s term statistics
 * read anyway.
 */
export function rareTermExpression(
  agent: SqlProvider,
  analyzed: AnalyzedQuery,
  window: number,
): { rare: string | null; rareLimit: number; anyWindow: number } {
  const groups = analyzed.terms.map((term) =>
    term.forms.map(fts5Phrase).join(" OR "),
  );
  const rows = agent.sql<{ at: number; n: number }>`
    SELECT CAST(j.key AS INTEGER) AS at,
      (SELECT COUNT(*) FROM (SELECT 1 FROM assistant_fts WHERE assistant_fts MATCH j.value
        LIMIT ${rareCountCap(window) + 1})) AS n
    FROM json_each(${JSON.stringify(groups)}) AS j`;
  const counts = groups.map(() => Number.POSITIVE_INFINITY);
  for (const row of rows) counts[Number(row.at)] = Number(row.n);
  const arm = rareTermArm(analyzed.match, counts, window);
  return {
    rare:
      arm.rare === null ? null : arm.rare.map((at) => groups[at]!).join(" OR "),
    rareLimit: arm.rareLimit,
    anyWindow: arm.anyWindow,
  };
}
