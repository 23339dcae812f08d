import { decodeMessage, searchableText } from "../../core/message-codec.js";
import { normalizeSearchLimit, rankWindow } from "../../core/search-limit.js";
import type { SearchResult } from "../../contracts/types.js";
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
): Promise<SearchResult[]> {
  const hits = await searchMessageRows(db, config, query, limit, {
    sql: "m.session_id = ?",
    params: [sessionId],
  });
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
  scope: MessageSearchScope,
): Promise<Array<SearchResult & { sessionId: string }>> {
  const terms = searchTerms(query);
  if (terms.length === 0) return [];
  const count = normalizeSearchLimit(limit);
  const match = matchSql(terms, "m.text_content");
  let rows: HitRow[];
  try {
    // The newest matches up to the rank window are found first (seq only); `ts_rank` then reads
    // the index text of those rows alone (docs/behavior/search.md#ranking-limits-and-results).
    rows = await db.query<HitRow>(
      `WITH q AS (SELECT ${tsquerySql(terms, "?::regconfig")} AS query),
      hit AS (
        SELECT m.seq FROM assistant_messages AS m${scope.joins ? ` ${scope.joins}` : ""}, q
        WHERE (${scope.sql}) AND m.content_tsv @@ q.query${match.sql}
        ORDER BY m.seq DESC
        LIMIT ?
      )
      SELECT m.id, m.session_id, m.role, m.content, ${isoSql("m.created_at")} AS created_at
      FROM hit JOIN assistant_messages AS m ON m.seq = hit.seq, q
      ORDER BY ts_rank(m.content_tsv, q.query) DESC, m.seq DESC
      LIMIT ?`,
      [
        ...queryParams(terms, config),
        ...scope.params,
        ...match.params,
        rankWindow(count),
        count,
      ],
    );
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

interface HitRow {
  id: string;
  session_id: string;
  role: string;
  content: string;
  created_at: string;
}
