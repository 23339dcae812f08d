import { searchResultsFromRows, type HitRow } from "../../core/stored-rows.js";
import { decodeMessage, searchableText } from "../../core/message-codec.js";
import { spaceCjk, toFts5Query } from "../../core/search-terms.js";
import { normalizeSearchLimit, rankWindow } from "../../core/search-limit.js";
import type { SqlProvider } from "../../contracts/sql-provider.js";
import { atomically } from "./sql-transaction.js";
import {
  prefixWithinBytes,
  withWholeContent,
  type StoredContentRow,
} from "./sql-message-chunks.js";
import type { SearchResult, SessionMessage } from "../../contracts/types.js";

/** The `arbor_meta` key of the highest message `seq` the search index has caught up to. */
export const INDEXED_SEQ_KEY = "fts_indexed_seq";

const CATCH_UP_BATCH = 500;

/**
 * UTF-8 bytes of a message's searchable text (after CJK spacing) that are indexed: the index row
 * stays under Durable Object SQLite's 2 MB value limit, so a message of any size can be indexed
 * (docs/behavior/search.md). Text past it is stored but not searchable.
 */
export const MAX_INDEXED_BYTES = 1_048_576;

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
    VALUES (${seq}, ${message.id}, ${sessionId}, ${message.role}, ${indexedText(text)})`;
}

/**
 * Re-indexes an updated message. Rows above the watermark are not indexed yet; the next
 * catch-up reads their current content, so only indexed rows need work here.
 */
export function reindexMessage(
  agent: SqlProvider,
  sessionId: string,
  seq: number,
  message: SessionMessage,
): void {
  if (seq > indexedSeq(agent)) return;
  unindexMessage(agent, seq);
  indexMessage(agent, sessionId, seq, message);
}

/**
 * Brings the search index up to date: indexes every message inserted since the watermark, in
 * batches, atomically, then moves the watermark. Appends therefore never touch the index (an FTS5
 * write per commit was most of an append's cost); the first search after them pays once, in
 * proportion to what was appended. Rows written by raw SQL are picked up the same way.
 */
export function catchUpIndex(agent: SqlProvider): void {
  const [latest] = agent.sql<{
    seq: number | null;
  }>`SELECT MAX(seq) AS seq FROM assistant_messages`;
  if ((latest?.seq ?? 0) <= indexedSeq(agent)) return;
  atomically(agent, () => {
    let after = indexedSeq(agent);
    // Rows above the watermark are normally not in the index; only when something indexed them
    // by other means is each one removed first (a delete per row doubled the catch-up's cost).
    const [top] = agent.sql<{
      rowid: number | null;
    }>`SELECT MAX(rowid) AS rowid FROM assistant_fts`;
    const defensive = (top?.rowid ?? 0) > after;
    for (;;) {
      const rows = withWholeContent(
        agent,
        agent.sql<
          StoredContentRow & { id: string; session_id: string; role: string }
        >`
          SELECT seq, id, session_id, role, content, chunked_bytes FROM assistant_messages
          WHERE seq > ${after} ORDER BY seq LIMIT ${CATCH_UP_BATCH}`,
      );
      const batch = new IndexBatch(agent);
      for (const row of rows) {
        const message = decodeMessage(row.content);
        if (defensive) unindexMessage(agent, row.seq);
        if (message) batch.add(row.seq, row.session_id, message);
      }
      batch.flush();
      if (rows.length === 0) break;
      after = rows.at(-1)!.seq;
    }
    agent.sql`INSERT INTO arbor_meta (key, value) VALUES (${INDEXED_SEQ_KEY}, ${String(after)})
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
  });
}

/** Marks every stored message as indexed (after a full rebuild). */
export function markAllIndexed(agent: SqlProvider): void {
  agent.sql`INSERT INTO arbor_meta (key, value)
    SELECT ${INDEXED_SEQ_KEY}, CAST(COALESCE(MAX(seq), 0) AS TEXT) FROM assistant_messages WHERE true
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
}

function indexedSeq(agent: SqlProvider): number {
  const [row] = agent.sql<{
    value: string;
  }>`SELECT value FROM arbor_meta WHERE key = ${INDEXED_SEQ_KEY}`;
  return Number(row?.value ?? 0);
}

/** Removes the index row of the message stored under `seq` (a rowid lookup, never a scan). */
export function unindexMessage(agent: SqlProvider, seq: number): void {
  agent.sql`DELETE FROM assistant_fts WHERE rowid = ${seq}`;
}

/**
 * Full-text search within one session (docs/behavior/search.md): every query term must match, operators are
 * literal, CJK terms match inside sentences. The newest matches within the rank window
 * (`rankWindow`), best rank first, ties newest first. `content` is the
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
  catchUpIndex(agent);
  const count = normalizeSearchLimit(limit);
  let rows: Array<HitRow & StoredContentRow>;
  try {
    // The inner query walks the matches newest first (FTS5 serves rowid order without sorting),
    // keeps this session's, and stops after the rank window; only those are scored and sorted. The
    // session's seq range bounds the walk when other sessions share the index.
    rows = agent.sql<HitRow & StoredContentRow>`
      SELECT m.seq AS seq, m.id AS id, m.role AS role, m.content AS content,
        m.chunked_bytes AS chunked_bytes, m.created_at AS created_at
      FROM (
        SELECT f.rowid AS seq, f.rank AS score
        FROM assistant_fts AS f CROSS JOIN assistant_messages AS m ON m.seq = f.rowid
        WHERE assistant_fts MATCH ${match} AND m.session_id = ${sessionId}
          AND f.rowid >= (SELECT MIN(seq) FROM assistant_messages WHERE session_id = ${sessionId})
          AND f.rowid <= (SELECT MAX(seq) FROM assistant_messages WHERE session_id = ${sessionId})
        ORDER BY f.rowid DESC
        LIMIT ${rankWindow(count)}
      ) AS hit CROSS JOIN assistant_messages AS m ON m.seq = hit.seq
      ORDER BY hit.score, hit.seq DESC
      LIMIT ${count}`;
  } catch (error) {
    if (isRejectedQuery(error)) return [];
    throw error;
  }
  return searchResultsFromRows(withWholeContent(agent, rows));
}

// --- Internal helpers ---

/** JSON characters gathered before one multi-row insert; a message longer than a quarter goes alone. */
const BATCH_JSON_CHARS = 512 * 1024;

/**
 * Index rows gathered for one `INSERT … SELECT FROM json_each` per batch: a statement per row
 * was the catch-up's main cost where a statement is dear (Durable Objects). Batches stay far
 * below the 2 MB a Durable Object allows a value.
 */
class IndexBatch {
  #entries: Array<[number, string, string, string, string]> = [];
  #chars = 0;

  constructor(private readonly agent: SqlProvider) {}

  add(seq: number, sessionId: string, message: SessionMessage): void {
    const text = searchableText(message);
    if (text.length === 0) return;
    const content = indexedText(text);
    if (content.length > BATCH_JSON_CHARS / 4) {
      indexMessage(this.agent, sessionId, seq, message);
      return;
    }
    this.#entries.push([seq, message.id, sessionId, message.role, content]);
    this.#chars += content.length + message.id.length + sessionId.length + 32;
    if (this.#chars >= BATCH_JSON_CHARS) this.flush();
  }

  flush(): void {
    if (this.#entries.length === 0) return;
    this.agent
      .sql`INSERT INTO assistant_fts (rowid, id, session_id, role, content)
      SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'),
        json_extract(value, '$[3]'), json_extract(value, '$[4]')
      FROM json_each(${JSON.stringify(this.#entries)})`;
    this.#entries = [];
    this.#chars = 0;
  }
}

/** The text stored in the index: CJK spaced, cut at `MAX_INDEXED_BYTES` on a character boundary. */
function indexedText(text: string): string {
  return prefixWithinBytes(spaceCjk(text), MAX_INDEXED_BYTES);
}

/** FTS5 query-syntax failures; anything else (I/O, missing tables) is a storage error and propagates. */
const REJECTED_QUERY =
  /fts5|syntax error|unterminated string|malformed match|unknown special query/i;

function isRejectedQuery(error: unknown): boolean {
  return error instanceof Error && REJECTED_QUERY.test(error.message);
}
