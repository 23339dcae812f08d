import type { PostgresQueryable } from "./postgres-client.js";
import { sessionScopeSql, TEXT_ARRAY_SQL } from "./postgres-sql.js";
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
 * `options.limit` of them, those holding more terms first: SQL keeps the candidates `summaryPrefilter` allows (`ILIKE`
 * folds ASCII case in every locale), each is confirmed in JavaScript.
 */
export async function searchSummaryRows(
  db: PostgresQueryable,
  query: string,
  options: RegistrySearchOptions,
): Promise<SummaryHit[]> {
  if (queryTerms(query).length === 0 || options.limit <= 0) return [];
  const { asciiPatterns, every } = summaryPrefilter(query, options.match);
  const conditions = [
    `(octet_length(c.summary) <> char_length(c.summary)${
      asciiPatterns
        ? every
          ? ` OR NOT EXISTS (SELECT 1 FROM unnest(${TEXT_ARRAY_SQL}) AS t (pattern)
            WHERE c.summary NOT ILIKE t.pattern)`
          : ` OR EXISTS (SELECT 1 FROM unnest(${TEXT_ARRAY_SQL}) AS t (pattern)
            WHERE c.summary ILIKE t.pattern)`
        : ""
    })`,
  ];
  const params: unknown[] = asciiPatterns
    ? [JSON.stringify(asciiPatterns)]
    : [];
  const scope = sessionScopeSql("c.session_id", options);
  conditions.push(...scope.conditions);
  params.push(...scope.params);
  if (options.since !== undefined) {
    conditions.push("c.created_at >= ?::timestamptz");
    params.push(options.since);
  }
  if (options.until !== undefined) {
    conditions.push("c.created_at < ?::timestamptz");
    params.push(options.until);
  }
  const hits: Array<SummaryHit & { count: number }> = [];
  for (let offset = 0; hits.length < options.limit; offset += PAGE) {
    const rows = await db.query<{
      id: string;
      session_id: string;
      summary: string;
    }>(
      `SELECT c.id, c.session_id, c.summary FROM assistant_compactions AS c
        JOIN assistant_sessions AS s ON s.id = c.session_id
      WHERE ${conditions.join(" AND ")}
      ORDER BY c.created_at DESC NULLS LAST, c.id DESC
      LIMIT ${PAGE} OFFSET ${offset}`,
      params,
    );
    for (const row of rows)
      if (hits.length < options.limit) {
        const count = summaryMatchCount(row.summary, query, options.match);
        if (count > 0)
          hits.push({ sessionId: row.session_id, id: row.id, count });
      }
    if (rows.length < PAGE) break;
  }
  return byMatchCount(hits).map(({ sessionId, id }) => ({ sessionId, id }));
}
