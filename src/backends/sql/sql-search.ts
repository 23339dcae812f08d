import {
  searchResultsFromRows,
  type HitRow,
} from "../../session/messages/stored-rows.js";
import {
  decodeMessage,
  reviveMessage,
  searchableText,
} from "../../session/messages/message-codec.js";
import { spaceCjk } from "../../session/text/search-terms.js";
import { analyzeQuery } from "../../session/text/query-analysis.js";
import {
  normalizeSearchLimit,
  RANK_WINDOW,
  rankTail,
} from "../../session/text/search-limit.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { rankedExpressions } from "./sql-rare-terms.js";
import { atomically, sqlTemplate } from "./sql-transaction.js";
import {
  prefixWithinBytes,
  readContentsBySeqs,
  withinValueLimit,
  withWholeContent,
  type StoredContentRow,
} from "./sql-message-chunks.js";
import type {
  SearchResult,
  SessionMessage,
  TextSearchOptions,
} from "../../session/contracts/types.js";

/** The `arbor_meta` key of the highest message `seq` the search index has caught up to. */
export const INDEXED_SEQ_KEY = "fts_indexed_seq";

/**
 * The `arbor_meta` key present (value `"1"`) when the store indexes tool outputs
 * (docs/behavior/search.md#tool-outputs). Read by every catch-up inside its transaction, so every
 * process over the store indexes by the setting in force.
 */
export const TOOL_OUTPUTS_KEY = "index_tool_outputs";

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
  seq: number,
  message: SessionMessage,
  toolOutputs: boolean,
): void {
  const text = searchableText(message, toolOutputs);
  if (text.length === 0) return;
  agent.sql`INSERT INTO assistant_fts (rowid, content) VALUES (${seq}, ${indexedText(text)})`;
}

/**
 * Records that the index row of an updated message is out of date, when the message is indexed
 * (`seq` at or below the watermark): the next catch-up rewrites it from the message's current
 * content. Rows above the watermark need nothing (the catch-up reads their current content).
 * Rewriting the row here would pay FTS5's `secure-delete` on every update.
 */
export function markUpdatedStale(agent: SqlProvider, seq: number): void {
  agent.sql`INSERT OR IGNORE INTO arbor_fts_stale (seq)
    SELECT ${seq} WHERE ${seq} <= (SELECT CAST(value AS INTEGER) FROM arbor_meta WHERE key = ${INDEXED_SEQ_KEY})`;
}

/**
 * Records the `seq`s of deleted messages (a JSON array): the next catch-up removes their index
 * rows. Every `seq`, not only those below the watermark, so a row indexed by other means goes too.
 */
export function markDeletedStale(agent: SqlProvider, seqsJson: string): void {
  agent.sql`INSERT OR IGNORE INTO arbor_fts_stale (seq) SELECT value FROM json_each(${seqsJson})`;
}

/** As `markDeletedStale`, for every message of a session (a clear); call before deleting the rows. */
export function markSessionStale(agent: SqlProvider, sessionId: string): void {
  agent.sql`INSERT OR IGNORE INTO arbor_fts_stale (seq)
    SELECT seq FROM assistant_messages WHERE session_id = ${sessionId}`;
}

/**
 * Brings the search index up to date, atomically: first rewrites the index rows that updates and
 * deletes marked stale (`arbor_fts_stale`), then indexes every message inserted since the
 * watermark, in batches, and moves the watermark. Writes therefore never touch the index (an FTS5
 * write per commit was most of an append's cost, and a `secure-delete` most of an update's); the
 * first search after them pays once, in proportion to what was written. Rows written by raw SQL
 * are picked up the same way.
 */
export function catchUpIndex(agent: SqlProvider): void {
  // One statement decides that there is nothing to do, the common case of a search.
  const [state] = agent.sql<{
    latest: number | null;
    indexed: string | null;
    stale: number;
  }>`SELECT (SELECT MAX(seq) FROM assistant_messages) AS latest,
      (SELECT value FROM arbor_meta WHERE key = ${INDEXED_SEQ_KEY}) AS indexed,
      EXISTS (SELECT 1 FROM arbor_fts_stale) AS stale`;
  if (!state?.stale && (state?.latest ?? 0) <= Number(state?.indexed ?? 0))
    return;
  atomically(agent, () => {
    const state = indexState(agent);
    rewriteStaleRows(agent, state);
    indexNewRows(agent, state);
  });
}

/**
 * Rewrites every stale index row now (see `catchUpIndex`), inside the caller's transaction: an
 * erase calls it with `secure-delete` on, so no text a delete or an update left in the index
 * outlives the erase.
 */
export function rewriteStaleIndexRows(agent: SqlProvider): void {
  rewriteStaleRows(agent, indexState(agent));
}

/**
 * Marks stale the index rows of indexed messages whose stored JSON may hold a tool part (it
 * mentions `tool-`, or is split over continuation rows), so the next catch-up rewrites them with
 * their tool-call inputs. A plain `LIKE` scan of the messages, at the schema step that made tool
 * inputs searchable and when the tool-output setting changes (sql-search-index.ts); messages
 * without tool calls keep their index rows.
 */
export function markToolCallRowsStale(agent: SqlProvider): void {
  agent.sql`INSERT OR IGNORE INTO arbor_fts_stale (seq)
    SELECT seq FROM assistant_messages
    WHERE seq <= COALESCE((SELECT CAST(value AS INTEGER) FROM arbor_meta WHERE key = ${INDEXED_SEQ_KEY}), 0)
      AND (content LIKE '%tool-%' OR content LIKE '%dynamic-tool%' OR chunked_bytes IS NOT NULL)`;
}

/** Marks every stored message as indexed (after a full rebuild). */
export function markAllIndexed(agent: SqlProvider): void {
  agent.sql`INSERT INTO arbor_meta (key, value)
    SELECT ${INDEXED_SEQ_KEY}, CAST(COALESCE(MAX(seq), 0) AS TEXT) FROM assistant_messages WHERE true
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
}

/** The index watermark and the setting it is written by, read inside the catch-up's transaction. */
interface IndexState {
  indexed: number;
  toolOutputs: boolean;
}

function indexState(agent: SqlProvider): IndexState {
  const [row] = agent.sql<{ indexed: string | null; outputs: string | null }>`
    SELECT (SELECT value FROM arbor_meta WHERE key = ${INDEXED_SEQ_KEY}) AS indexed,
      (SELECT value FROM arbor_meta WHERE key = ${TOOL_OUTPUTS_KEY}) AS outputs`;
  return {
    indexed: Number(row?.indexed ?? 0),
    toolOutputs: row?.outputs === "1",
  };
}

/** Removes the index row of the message stored under `seq` (a rowid lookup, never a scan). */
function unindexMessage(agent: SqlProvider, seq: number): void {
  agent.sql`DELETE FROM assistant_fts WHERE rowid = ${seq}`;
}

/**
 * Full-text search within one session (docs/behavior/search.md). Ranked any-term by default: the
 * messages holding every query term come first, then those holding some, each group by FTS5
 * `bm25()` (rarer terms weigh more), ties newest first; stop words do not count. `match: "all"`
 * keeps only messages holding every term. Candidates are the newest matches up to the rank
 * window (`RANK_WINDOW`, whatever the limit) of each: of all terms, and of any term; every-term
 * matches older than the any-term window follow the scored ones, newest first. Every match of a
 * rare term (one at most a window of messages hold, `rankedExpressions`) is a candidate too,
 * however old, scored by its rare terms. A limit past the window reads that many more of the
 * newest matches, unscored (`rankTail`), so the first results never depend on the limit. `since`/`until` filter on `created_at` inside the query.
 * `content` is the message's searchable text, rebuilt from the stored message of each hit.
 * Empty, unsearchable or engine-rejected queries give `[]`.
 */
export function searchSessionMessages(
  agent: SqlProvider,
  sessionId: string,
  query: string,
  limit?: number,
  options: TextSearchOptions = {},
): SearchResult[] {
  // FTS5 reads a query only up to a NUL character, so a NUL separates terms like a space.
  const analyzed = analyzeQuery(
    typeof query === "string" ? query.replaceAll("\u0000", " ") : query,
    options.match ?? "any",
    options.prefix,
  );
  if (analyzed === null) return [];
  catchUpIndex(agent);
  const count = normalizeSearchLimit(limit);
  const window = options.rankWindow ?? RANK_WINDOW;
  // `LIMIT 0` while the limit fits in the window: SQLite then never starts the arm's scan.
  const tail = rankTail(window, count);
  const since = options.since ?? null;
  const until = options.until ?? null;
  let rows: Array<HitRow & StoredContentRow>;
  try {
    const { all, any, rare, rareLimit, anyWindow } = rankedExpressions(
      agent,
      analyzed,
      window,
    );
    // Each arm walks its matches newest first (FTS5 serves rowid order without sorting), keeps
    // this session's, and stops after the rank window. The session's seq range bounds the walk
    // when other sessions share the index. Only the any-term arm calls `bm25()`: its first call
    // counts every term's matches in the whole index (the IDF), which is most of a search's cost,
    // so one arm pays it, not two. Every-term matches found only by their own arm (older than
    // the any-term window) have no score: they follow the scored ones, newest first.
    const arm = (match: string, limit: number): unknown[] => [
      match,
      sessionId,
      sessionId,
      sessionId,
      since,
      since,
      until,
      until,
      limit,
    ];
    rows =
      any === null
        ? agent.sql<HitRow & StoredContentRow>(
            EVERY_TERM_STATEMENT,
            ...arm(all, window),
            ...arm(all, tail),
            count,
          )
        : agent.sql<HitRow & StoredContentRow>(
            RANKED_STATEMENT,
            ...arm(all, window),
            ...arm(any, anyWindow),
            ...arm(rare ?? all, rareLimit),
            ...arm(any, tail),
            count,
          );
  } catch (error) {
    if (isRejectedQuery(error)) return [];
    throw error;
  }
  return searchResultsFromRows(withWholeContent(agent, rows));
}

// --- Internal helpers ---

/**
 * One arm of a ranked search: the session's matches of a MATCH expression, newest first, within
 * the session's seq range and the time bounds, at most a limit; its parameters in `arm()`'s
 * order. `score` and `every` are the columns the arm gives its rows. The statements are written
 * once here and joined, not spelled out per arm: they ship in a Worker's bundle.
 */
function armSql(score: string, every: string): string {
  return `SELECT * FROM (SELECT f.rowid AS seq, ${score} AS score${every}
    FROM assistant_fts AS f CROSS JOIN assistant_messages AS m ON m.seq = f.rowid
    WHERE assistant_fts MATCH ? AND m.session_id = ?
    AND f.rowid >= (SELECT MIN(seq) FROM assistant_messages WHERE session_id = ?)
    AND f.rowid <= (SELECT MAX(seq) FROM assistant_messages WHERE session_id = ?)
    AND (? IS NULL OR m.created_at >= ?) AND (? IS NULL OR m.created_at < ?)
    ORDER BY f.rowid DESC LIMIT ?)`;
}

/** The matched rows read whole, `hit` ordered by `order`, at most `?` of them. */
function hitsSql(columns: string, arms: string[], order: string): string {
  return `SELECT m.seq AS seq, m.id AS id, m.role AS role, m.content AS content,
    m.chunked_bytes AS chunked_bytes, m.created_at AS created_at
    FROM (SELECT seq, ${columns} FROM (${arms.join(" UNION ALL ")}) GROUP BY seq) AS hit
    CROSS JOIN assistant_messages AS m ON m.seq = hit.seq
    ORDER BY ${order}, hit.seq DESC LIMIT ?`;
}

/** Every-term matches only: scored within the rank window, then the older ones unscored. */
const EVERY_TERM_STATEMENT = sqlTemplate(
  hitsSql(
    "MIN(score) AS score",
    [armSql("f.rank", ""), armSql("NULL", "")],
    "hit.score IS NULL, hit.score",
  ),
);

/**
 * Every-term matches first (unscored: their own arm), then the any-term ranking (the one arm that
 * calls bm25), the rarest terms' matches and the older any-term matches.
 */
const RANKED_STATEMENT = sqlTemplate(
  hitsSql(
    "MIN(score) AS score, MAX(every) AS every",
    [
      armSql("NULL", ", 1 AS every"),
      armSql("f.rank", ", 0 AS every"),
      armSql("f.rank", ", 0 AS every"),
      armSql("NULL", ", 0 AS every"),
    ],
    "hit.every DESC, hit.score IS NULL, hit.score",
  ),
);

/**
 * Removes the index rows of stale `seq`s and re-indexes those still stored at or below `indexed`.
 * A `secure-delete` costs about as much per row in a batch as alone (it rewrites the segment pages
 * that hold each of the row's terms), so when many rows are stale it is cheaper to delete them
 * plainly and merge the whole index once (`optimize`), which leaves no trace of them either.
 */
function rewriteStaleRows(agent: SqlProvider, state: IndexState): void {
  const [pending] = agent.sql<{
    count: number;
  }>`SELECT COUNT(*) AS count FROM arbor_fts_stale`;
  const stale = Number(pending?.count ?? 0);
  if (stale === 0) return;
  const merge =
    stale >= MERGE_MIN_STALE && stale * MERGE_SHARE >= indexRowCount(agent);
  if (merge) setSecureDelete(agent, false);
  rewriteStaleBatches(agent, state);
  if (merge) {
    agent.sql`INSERT INTO assistant_fts (assistant_fts) VALUES ('optimize')`;
    setSecureDelete(agent, true);
  }
}

/**
 * A merge (`optimize`) costs about 1/200 of a row's `secure-delete` per indexed row (measured on
 * a SQLite file: 1,000 stale rows of 10,000 took 0.6 s by `secure-delete`, 40 ms by a merge), so
 * it wins once one row in 200 is stale; below `MERGE_MIN_STALE` rows the index is not counted.
 */
const MERGE_SHARE = 200;
const MERGE_MIN_STALE = 16;

function indexRowCount(agent: SqlProvider): number {
  const [row] = agent.sql<{
    count: number;
  }>`SELECT COUNT(*) AS count FROM assistant_fts_docsize`;
  return Number(row?.count ?? 0);
}

/**
 * FTS5's `secure-delete` option, as a literal (FTS5 refuses a bound value a driver passes as a
 * REAL). A SQLite before 3.42 lacks the option: its deletes are plain anyway.
 */
function setSecureDelete(agent: SqlProvider, on: boolean): void {
  try {
    if (on)
      agent.sql`INSERT INTO assistant_fts (assistant_fts, rank) VALUES ('secure-delete', 1)`;
    else
      agent.sql`INSERT INTO assistant_fts (assistant_fts, rank) VALUES ('secure-delete', 0)`;
  } catch {
    // Older SQLite: no such option.
  }
}

function rewriteStaleBatches(agent: SqlProvider, state: IndexState): void {
  for (;;) {
    const stale = agent.sql<{ seq: number }>`
      SELECT seq FROM arbor_fts_stale ORDER BY seq LIMIT ${CATCH_UP_BATCH}`;
    if (stale.length === 0) return;
    const last = stale.at(-1)!.seq;
    const seqs = JSON.stringify(stale.map((row) => row.seq));
    agent.sql`DELETE FROM assistant_fts WHERE rowid IN (SELECT value FROM json_each(${seqs}))`;
    // Above the watermark the watermark pass indexes the row; indexing it here too would clash.
    const rows = withWholeContent(
      agent,
      agent.sql<StoredContentRow>`
        SELECT seq, content, chunked_bytes FROM assistant_messages
        WHERE seq IN (SELECT value FROM json_each(${seqs})) AND seq <= ${state.indexed}
        ORDER BY seq`,
    );
    const batch = new IndexBatch(agent, state.toolOutputs);
    for (const row of rows) {
      const message = decodeMessage(row.content);
      if (message) batch.add(row.seq, message);
    }
    batch.flush();
    agent.sql`DELETE FROM arbor_fts_stale WHERE seq <= ${last}`;
  }
}

/** Indexes every message above the watermark `indexed`, in batches, and moves the watermark. */
function indexNewRows(agent: SqlProvider, state: IndexState): void {
  const indexed = state.indexed;
  const [latest] = agent.sql<{
    seq: number | null;
  }>`SELECT MAX(seq) AS seq FROM assistant_messages`;
  if ((latest?.seq ?? 0) <= indexed) return;
  let after = indexed;
  // Rows above the watermark are normally not in the index; only when something indexed them
  // by other means is each one removed first (a delete per row doubled the catch-up's cost).
  const [top] = agent.sql<{
    rowid: number | null;
  }>`SELECT MAX(rowid) AS rowid FROM assistant_fts`;
  const defensive = (top?.rowid ?? 0) > after;
  let rows = CATCH_UP_BATCH;
  for (;;) {
    const read = readNewMessages(agent, after, rows);
    if (read.seqs.length === 0) break;
    const batch = new IndexBatch(agent, state.toolOutputs);
    read.seqs.forEach((seq, index) => {
      const message = read.messages[index] ?? null;
      if (defensive) unindexMessage(agent, seq);
      if (message) batch.add(seq, message);
    });
    batch.flush();
    after = read.seqs.at(-1)!;
    rows = Math.max(
      1,
      Math.min(
        CATCH_UP_BATCH * 4,
        Math.floor(
          (read.seqs.length * CATCH_UP_CHARS) / Math.max(read.chars, 1),
        ),
      ),
    );
  }
  agent.sql`INSERT INTO arbor_meta (key, value) VALUES (${INDEXED_SEQ_KEY}, ${String(after)})
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
}

/** Stored JSON characters a catch-up read aims at: its rows are sized from the last read's. */
const CATCH_UP_CHARS = 256 * 1024;

/**
 * The messages stored after `after`, at most `rows`, in `seq` order (`null` for a row that is not
 * a message). One statement returns their texts as one JSON array, parsed at once: a row per
 * message cost a third of the catch-up's reading in a Durable Object, where every row returned is
 * an object built by the runtime. SQLite writes the brackets, as in the history scan
 * (sql-path-read.ts): wrapped in JavaScript, each read's text was copied once more. Split messages are read whole apart; a chunk whose texts are not
 * one JSON list (a row written by raw SQL) is read again row by row.
 */
function readNewMessages(
  agent: SqlProvider,
  after: number,
  rows: number,
): { seqs: number[]; messages: Array<SessionMessage | null>; chars: number } {
  const [chunk] = withinValueLimit(
    rows,
    (fewer) =>
      agent.sql<{ seqs: string; chunked: string; texts: string | null }>`
      SELECT json_group_array(seq) AS seqs, json_group_array(chunked) AS chunked,
        '[' || group_concat(text, ',') || ']' AS texts
      FROM (SELECT seq, chunked_bytes IS NOT NULL AS chunked,
          CASE WHEN chunked_bytes IS NULL THEN content ELSE 'null' END AS text
        FROM assistant_messages WHERE seq > ${after} ORDER BY seq LIMIT ${fewer})`,
  );
  const seqs = JSON.parse(chunk?.seqs ?? "[]") as number[];
  const texts = chunk?.texts ?? "[]";
  let values: unknown = null;
  try {
    values = JSON.parse(texts);
  } catch {
    values = null;
  }
  if (!Array.isArray(values) || values.length !== seqs.length) {
    const stored = withWholeContent(
      agent,
      agent.sql<StoredContentRow>`
        SELECT seq, content, chunked_bytes FROM assistant_messages
        WHERE seq > ${after} AND seq <= ${seqs.at(-1) ?? after} ORDER BY seq`,
    );
    return {
      seqs: stored.map((row) => row.seq),
      messages: stored.map((row) => decodeMessage(row.content)),
      chars: texts.length,
    };
  }
  const messages = values.map(reviveMessage);
  const chunked = JSON.parse(chunk!.chunked) as number[];
  const split = seqs.filter((_, index) => chunked[index]);
  if (split.length > 0) {
    const whole = readContentsBySeqs(agent, split);
    seqs.forEach((seq, index) => {
      if (chunked[index]) messages[index] = decodeMessage(whole.get(seq) ?? "");
    });
  }
  return { seqs, messages, chars: texts.length };
}

/** JSON characters gathered before one multi-row insert; a message longer than a quarter goes alone. */
const BATCH_JSON_CHARS = 512 * 1024;

/**
 * Index rows gathered for one `INSERT … SELECT FROM json_each` per batch: a statement per row
 * was the catch-up's main cost where a statement is dear (Durable Objects). Batches stay far
 * below the 2 MB a Durable Object allows a value.
 */
class IndexBatch {
  #entries: Array<[number, string]> = [];
  #chars = 0;

  constructor(
    private readonly agent: SqlProvider,
    private readonly toolOutputs: boolean,
  ) {}

  add(seq: number, message: SessionMessage): void {
    const text = searchableText(message, this.toolOutputs);
    if (text.length === 0) return;
    const content = indexedText(text);
    if (content.length > BATCH_JSON_CHARS / 4) {
      indexMessage(this.agent, seq, message, this.toolOutputs);
      return;
    }
    this.#entries.push([seq, content]);
    this.#chars += content.length + 16;
    if (this.#chars >= BATCH_JSON_CHARS) this.flush();
  }

  flush(): void {
    if (this.#entries.length === 0) return;
    this.agent.sql`INSERT INTO assistant_fts (rowid, content)
      SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]')
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
