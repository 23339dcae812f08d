import {
  decodeMessage,
  searchableText,
} from "../../session/core/message-codec.js";
import {
  normalizeSearchLimit,
  rankWindow,
} from "../../session/core/search-limit.js";
import type {
  SearchResult,
  TextSearchOptions,
} from "../../session/contracts/types.js";
import type { PostgresQueryable } from "./postgres-client.js";
import {
  searchTerms,
  tsquerySql,
  type SearchTerm,
} from "./postgres-search-text.js";
import { isoSql } from "./postgres-sql.js";

/**
 * Full-text search within one session (docs/behavior/search.md): every term must match, operators are literal,
 * CJK words match anywhere inside a sentence. The newest matches within the rank window, `ts_rank`
 * first, ties newest first. `content` is
 * the message's searchable text, rebuilt from the stored message. Empty, unsearchable or
 * engine-rejected queries give `[]`; other errors (connection, missing table) propagate.
 */
export async function searchSessionMessages(
  db: PostgresQueryable,
  config: string,
  sessionId: string,
  query: string,
  limit?: number,
  options: TextSearchOptions = {},
): Promise<SearchResult[]> {
  const hits = await searchMessageRows(
    db,
    config,
    query,
    limit,
    { sql: "m.session_id = ?", params: [sessionId] },
    options,
  );
  return hits.map(({ sessionId: _session, ...hit }) => hit);
}

/**
 * Which messages a search covers: a condition on `m` (`assistant_messages`) with its parameters,
 * and optionally joins (`JOIN … ON …`) the condition may refer to.
 */
export interface MessageSearchScope {
  joins?: string;
  sql: string;
  params: readonly unknown[];
}

/**
 * The message search of `searchSessionMessages` over any scope (one session, or the sessions of
 * the SessionManager registry): same matching, same order (`ts_rank`, then newest first by
 * insertion `seq`). Every result carries its `sessionId`.
 */
export async function searchMessageRows(
  db: PostgresQueryable,
  config: string,
  query: string,
  limit: number | undefined,
  messageScope: MessageSearchScope,
  options: TextSearchOptions = {},
): Promise<Array<SearchResult & { sessionId: string }>> {
  const terms = searchTerms(query);
  if (terms.length === 0) return [];
  const scope = withTimeRange(messageScope, options);
  const count = normalizeSearchLimit(limit);
  let rows: HitRow[];
  try {
    rows = await db.query<HitRow>(hitSql(terms, scope), [
      ...queryParams(terms, config),
      ...scope.params,
      ...matchSql(terms, "m.text_content").params,
      rankWindow(count),
      ...queryParams(terms, config),
      count,
    ]);
  } catch (error) {
    if (isRejectedQuery(error)) return [];
    throw error;
  }
  const results: Array<SearchResult & { sessionId: string }> = [];
  for (const row of rows) {
    const message = decodeMessage(row.content);
    if (message === null) continue;
    results.push({
      id: row.id,
      role: row.role,
      content: searchableText(message),
      createdAt: row.created_at,
      sessionId: row.session_id,
    });
  }
  return results;
}

/** Parameters of `tsquerySql(terms, "?::regconfig")`. */
export function queryParams(
  terms: readonly SearchTerm[],
  config: string,
): unknown[] {
  return terms.flatMap((term) => [config, term.phrase]);
}

/** Substring conditions on the stored search text for the CJK runs of the terms. */
export function matchSql(
  terms: readonly SearchTerm[],
  column: string,
): { sql: string; params: string[] } {
  const params = terms.flatMap((term) => term.substrings);
  return {
    sql: params.map(() => ` AND strpos(${column}, ?) > 0`).join(""),
    params,
  };
}

/**
 * Errors a query can cause by its content (SQLSTATE classes 22 data exception, 54 program limit
 * exceeded, e.g. "tsquery is too large"); connection and schema errors are not among them.
 */
export function isRejectedQuery(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^(22|54)/.test(code);
}

// --- Internal helpers ---

/** The scope narrowed to `since` (inclusive) and `until` (exclusive) on `created_at`. */
function withTimeRange(
  scope: MessageSearchScope,
  options: TextSearchOptions,
): MessageSearchScope {
  const conditions = [`(${scope.sql})`];
  const params = [...scope.params];
  if (options.since !== undefined) {
    conditions.push("m.created_at >= ?::timestamptz");
    params.push(options.since);
  }
  if (options.until !== undefined) {
    conditions.push("m.created_at < ?::timestamptz");
    params.push(options.until);
  }
  if (conditions.length === 1) return scope;
  return { ...scope, sql: conditions.join(" AND "), params };
}

/**
 * The newest matches up to the rank window (seq and row address only); `ts_rank` then reads
 * those rows alone (docs/behavior/search.md#ranking-limits-and-results), fetched by `ctid`
 * because `seq` alone has no index: joining on it scanned the whole table. One statement, one
 * snapshot, so each `ctid` names the row version the CTE saw. The tsquery is inline, not in a
 * CTE, so the planner sees how common its words are when it picks a plan.
 */
function hitSql(
  terms: readonly SearchTerm[],
  scope: MessageSearchScope,
): string {
  const tsquery = tsquerySql(terms, "?::regconfig");
  return `WITH hit AS MATERIALIZED (
      SELECT m.seq, m.ctid AS row_id
      FROM assistant_messages AS m${scope.joins ? ` ${scope.joins}` : ""}
      WHERE m.content_tsv @@ (${tsquery}) AND (${scope.sql})${matchSql(terms, "m.text_content").sql}
      ORDER BY m.seq DESC
      LIMIT ?
    )
    SELECT m.id, m.session_id, m.role, m.content, ${isoSql("m.created_at")} AS created_at
    FROM hit JOIN assistant_messages AS m ON m.ctid = hit.row_id
    ORDER BY ts_rank(m.content_tsv, ${tsquery}) DESC, m.seq DESC
    LIMIT ?`;
}

interface HitRow {
  id: string;
  session_id: string;
  role: string;
  content: string;
  created_at: string;
}
