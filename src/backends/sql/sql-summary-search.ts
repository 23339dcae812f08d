import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import type {
  RegistrySearchOptions,
  SummaryHit,
} from "../../session/contracts/registry.js";
import { queryTerms } from "../../session/text/search-terms.js";
import {
  byMatchCount,
  summaryMatchCount,
  summaryPrefilter,
} from "../../session/text/summary-match.js";

/** Overlays read per query while looking for summary matches, newest first. */
const PAGE = 500;

/**
 * Overlays of registered sessions whose summary matches the query (`summaryMatches`), the newest
 * `options.limit` of them, those holding more terms first. SQL keeps the candidates `summaryPrefilter` allows; each is
 * confirmed in JavaScript. Reads newest first in pages and stops once it has enough.
 */
export function searchSummaryRows(
  agent: SqlProvider,
  query: string,
  options: RegistrySearchOptions,
): SummaryHit[] {
  if (queryTerms(query).length === 0 || options.limit <= 0) return [];
  const { asciiPatterns, every } = summaryPrefilter(query, options.match);
  const patterns = asciiPatterns ? JSON.stringify(asciiPatterns) : null;
  const needsEvery = every ? 1 : 0;
  const sessionIds = options.sessionIds
    ? JSON.stringify(options.sessionIds)
    : null;
  const ownerId = options.ownerId ?? null;
  const since = options.since ?? null;
  const until = options.until ?? null;
  const hits: Array<SummaryHit & { count: number }> = [];
  for (let before = Number.MAX_SAFE_INTEGER; hits.length < options.limit;) {
    const rows = agent.sql<{
      seq: number;
      id: string;
      session_id: string;
      summary: string;
    }>`
      SELECT c.seq AS seq, c.id AS id, c.session_id AS session_id, c.summary AS summary
      FROM assistant_compactions AS c
        CROSS JOIN assistant_sessions AS s ON s.id = c.session_id
      WHERE c.seq < ${before}
        AND (${since} IS NULL OR c.created_at >= ${since})
        AND (${until} IS NULL OR c.created_at < ${until})
        AND (${sessionIds} IS NULL OR c.session_id IN (SELECT value FROM json_each(${sessionIds})))
        AND (${ownerId} IS NULL OR EXISTS (SELECT 1 FROM assistant_config AS o
          WHERE o.session_id = c.session_id AND o.key = 'owner' AND o.value = ${ownerId}))
        AND (length(CAST(c.summary AS BLOB)) <> length(c.summary)
          OR (${patterns} IS NOT NULL AND ${needsEvery} = 1 AND NOT EXISTS (SELECT 1 FROM json_each(${patterns}) AS t
            WHERE c.summary NOT LIKE t.value ESCAPE '\\'))
          OR (${patterns} IS NOT NULL AND ${needsEvery} = 0 AND EXISTS (SELECT 1 FROM json_each(${patterns}) AS t
            WHERE c.summary LIKE t.value ESCAPE '\\')))
      ORDER BY c.seq DESC
      LIMIT ${PAGE}`;
    for (const row of rows)
      if (hits.length < options.limit) {
        const count = summaryMatchCount(row.summary, query, options.match);
        if (count > 0)
          hits.push({ sessionId: row.session_id, id: row.id, count });
      }
    if (rows.length < PAGE) break;
    before = rows.at(-1)!.seq;
  }
  return byMatchCount(hits).map(({ sessionId, id }) => ({ sessionId, id }));
}
