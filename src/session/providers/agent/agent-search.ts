import { decodeMessage, searchableText } from "../../core/message-codec.js";
import { spaceCjk, toFts5Query } from "../../core/search-terms.js";
import type { SqlProvider } from "../../sql-provider.js";
import type { SearchResult, SessionMessage } from "../../types.js";

/** `limit` when the caller gives none or one that is not a positive integer (SPEC §5.3). */
export const DEFAULT_SEARCH_LIMIT = 20;

/**
 * Indexes a message's searchable text under `rowid = seq`. The indexed column holds the text with
 * every CJK character spaced into its own token (see docs/search.md); a message without text gets
 * no index row.
 */
export function indexMessage(
  agent: SqlProvider,
  sessionId: string,
  seq: number,
  message: SessionMessage,
): void {
  const text = searchableText(message);
  if (text.length === 0) return;
  agent.sql`INSERT INTO assistant_fts (rowid, id, session_id, role, content)
    VALUES (${seq}, ${message.id}, ${sessionId}, ${message.role}, ${spaceCjk(text)})`;
}

/** Removes the index row of the message stored under `seq` (a rowid lookup, never a scan). */
export function unindexMessage(agent: SqlProvider, seq: number): void {
  agent.sql`DELETE FROM assistant_fts WHERE rowid = ${seq}`;
}

/**
 * Full-text search within one session (SPEC §5): every query term must match, operators are
 * literal, CJK terms match inside sentences. Best rank first, ties newest first. `content` is the
 * message's searchable text, rebuilt from the stored message of each hit. Empty, unsearchable or
 * engine-rejected queries give `[]`.
 */
export function searchSessionMessages(
  agent: SqlProvider,
  sessionId: string,
  query: string,
  limit?: number,
): SearchResult[] {
  // FTS5 reads a query only up to a NUL character, so a NUL separates terms like a space.
  const match = toFts5Query(
    typeof query === "string" ? query.replaceAll("\u0000", " ") : query,
  );
  if (match === null) return [];
  const count =
    Number.isInteger(limit) && (limit as number) > 0
      ? limit
      : DEFAULT_SEARCH_LIMIT;
  let rows: HitRow[];
  try {
    // CROSS JOIN keeps the FTS match as the outer loop: the cost follows the hits, not the session.
    rows = agent.sql<HitRow>`
      SELECT m.id AS id, m.role AS role, m.content AS content, m.created_at AS created_at
      FROM assistant_fts AS f CROSS JOIN assistant_messages AS m ON m.seq = f.rowid
      WHERE assistant_fts MATCH ${match} AND m.session_id = ${sessionId}
      ORDER BY f.rank, f.rowid DESC
      LIMIT ${count}`;
  } catch (error) {
    if (isRejectedQuery(error)) return [];
    throw error;
  }
  const results: SearchResult[] = [];
  for (const row of rows) {
    const message = decodeMessage(row.content);
    if (message === null) continue;
    results.push({
      id: row.id,
      role: row.role,
      content: searchableText(message),
      createdAt: row.created_at,
    });
  }
  return results;
}

// --- Internal helpers ---

interface HitRow {
  id: string;
  role: string;
  content: string;
  created_at: string;
}

/** FTS5 query-syntax failures; anything else (I/O, missing tables) is a storage error and propagates. */
const REJECTED_QUERY =
  /fts5|syntax error|unterminated string|malformed match|unknown special query/i;

function isRejectedQuery(error: unknown): boolean {
  return error instanceof Error && REJECTED_QUERY.test(error.message);
}
