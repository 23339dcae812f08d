import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { utf8Length } from "../../session/encoding/utf8.js";

/**
 * Largest piece of a message's JSON kept in one row, in UTF-8 bytes (1.5 MiB): a message row or a
 * continuation row stays well under Durable Object SQLite's 2 MB limit on a row and on any
 * string value (docs/behavior/storage.md).
 */
export const CHUNK_MAX_BYTES = 1_572_864;

/**
 * Runs `read` over `rows` rows, and over half as many again while the host refuses the joined
 * text as too big. A Durable Object's SQLite refuses any string over 2 MB (SQLITE_TOOBIG), and
 * reads that join many rows' texts size their rows before the texts are seen: 128 messages of
 * 20 KB are over it. One message's row is at most `CHUNK_MAX_BYTES` (longer ones are split), so
 * one row always fits.
 */
export function withinValueLimit<T>(
  rows: number,
  read: (rows: number) => T,
): T {
  for (;;) {
    try {
      return read(rows);
    } catch (error) {
      if (rows <= 1 || !TOO_BIG.test(String((error as Error)?.message)))
        throw error;
      rows >>= 1;
    }
  }
}

const TOO_BIG = /too big|TOOBIG/i;

/** A stored row whose `content` may be the first piece of a split message. */
export interface StoredContentRow {
  seq: number;
  content: string;
  /** The whole JSON's UTF-8 size when the message is split over continuation rows, else `null`. */
  chunked_bytes: number | null;
}

/** A message's JSON as it is written: the message row's content, and the continuation rows. */
export interface SplitContent {
  head: string;
  continuations: string[];
  /** `null` when the JSON fits in the message row (no continuation). */
  chunkedBytes: number | null;
}

/**
 * Creates the continuation table and the trigger that deletes a split message's continuation rows
 * with its message row, whichever statement deletes it (delete with repair, clear, session delete,
 * raw SQL). The trigger only fires for split rows, so deleting ordinary messages costs nothing more.
 */
export function createMessageChunkTable(agent: SqlProvider): void {
  agent.sql`CREATE TABLE IF NOT EXISTS assistant_message_chunks (
    message_seq INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (message_seq, idx)
  )`;
  agent.sql`CREATE TRIGGER IF NOT EXISTS assistant_message_chunks_delete
    AFTER DELETE ON assistant_messages WHEN OLD.chunked_bytes IS NOT NULL
    BEGIN
      DELETE FROM assistant_message_chunks WHERE message_seq = OLD.seq;
    END`;
}

/** Splits a message's JSON into row-sized pieces at character boundaries (never inside one). */
export function splitContent(json: string): SplitContent {
  // A UTF-16 unit is at most 3 UTF-8 bytes, so short texts skip the byte count.
  if (json.length * 3 <= CHUNK_MAX_BYTES)
    return { head: json, continuations: [], chunkedBytes: null };
  const pieces = splitUtf8(json, CHUNK_MAX_BYTES);
  if (pieces.length === 1)
    return { head: json, continuations: [], chunkedBytes: null };
  return {
    head: pieces[0]!,
    continuations: pieces.slice(1),
    chunkedBytes: utf8Length(json),
  };
}

/** Writes the continuation rows of the message stored under `seq` (inside the caller's transaction). */
export function insertContinuations(
  agent: SqlProvider,
  seq: number,
  continuations: readonly string[],
): void {
  continuations.forEach((data, index) => {
    agent.sql`INSERT INTO assistant_message_chunks (message_seq, idx, data)
      VALUES (${seq}, ${index + 1}, ${data})`;
  });
}

/** Replaces the continuation rows of an updated message (a big message may become small or bigger). */
export function replaceContinuations(
  agent: SqlProvider,
  seq: number,
  continuations: readonly string[],
): void {
  agent.sql`DELETE FROM assistant_message_chunks WHERE message_seq = ${seq}`;
  insertContinuations(agent, seq, continuations);
}

/**
 * Puts the whole JSON into `content` of every split row, in place, and returns the rows. Every read
 * of message content goes through here: one query for all split rows, none when no row is split.
 */
export function withWholeContent<Row extends StoredContentRow>(
  agent: SqlProvider,
  rows: Row[],
): Row[] {
  const split = rows.filter((row) => row.chunked_bytes !== null);
  if (split.length === 0) return rows;
  const whole = readWholeContents(
    agent,
    new Map(split.map((row) => [row.seq, row.content])),
  );
  for (const row of split) row.content = whole.get(row.seq) ?? row.content;
  return rows;
}

/**
 * The whole JSON of split messages, given each one's `seq` and first piece (its row's content).
 * Continuation rows are read in one query, in order.
 */
export function readWholeContents(
  agent: SqlProvider,
  heads: ReadonlyMap<number, string>,
): Map<number, string> {
  const pieces = new Map<number, string[]>();
  for (const [seq, head] of heads) pieces.set(seq, [head]);
  for (const row of agent.sql<{ message_seq: number; data: string }>`
    SELECT message_seq, data FROM assistant_message_chunks
    WHERE message_seq IN (SELECT value FROM json_each(${JSON.stringify([...heads.keys()])}))
    ORDER BY message_seq, idx`) {
    pieces.get(row.message_seq)?.push(row.data);
  }
  return new Map([...pieces].map(([seq, parts]) => [seq, parts.join("")]));
}

/** The stored JSON of one message of a session, split pieces joined; `undefined` when absent. */
export function readMessageContent(
  agent: SqlProvider,
  sessionId: string,
  id: string,
): string | undefined {
  const rows = agent.sql<StoredContentRow>`
    SELECT seq, content, chunked_bytes FROM assistant_messages
    WHERE session_id = ${sessionId} AND id = ${id}`;
  return withWholeContent(agent, rows)[0]?.content;
}

/** The stored JSON of the children of `parentId` in insertion order, split pieces joined. */
export function readChildContents(
  agent: SqlProvider,
  sessionId: string,
  parentId: string,
): string[] {
  const rows = agent.sql<StoredContentRow>`
    SELECT seq, content, chunked_bytes FROM assistant_messages
    WHERE session_id = ${sessionId} AND parent_id = ${parentId} ORDER BY seq`;
  return withWholeContent(agent, rows).map((row) => row.content);
}

/**
 * The stored JSON of messages of one session by id (reads by a list of ids, e.g. a window of a
 * path), split messages joined. Ids not in the session are absent from the map.
 */
export function readContentsByIds(
  agent: SqlProvider,
  sessionId: string,
  ids: readonly string[],
): Map<string, string> {
  const rows = agent.sql<StoredContentRow & { id: string }>`
    SELECT seq, id, content, chunked_bytes FROM assistant_messages
    WHERE session_id = ${sessionId} AND id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
  withWholeContent(agent, rows);
  return new Map(rows.map((row) => [row.id, row.content]));
}

/** The stored JSON of messages by `seq` (any session), split messages joined. */
export function readContentsBySeqs(
  agent: SqlProvider,
  seqs: readonly number[],
): Map<number, string> {
  const rows = agent.sql<StoredContentRow>`
    SELECT seq, content, chunked_bytes FROM assistant_messages
    WHERE seq IN (SELECT value FROM json_each(${JSON.stringify(seqs)}))`;
  withWholeContent(agent, rows);
  return new Map(rows.map((row) => [row.seq, row.content]));
}

/** The longest prefix of `text` within `maxBytes` UTF-8 bytes, never cutting a character. */
export function prefixWithinBytes(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const width = unitWidth(text, index);
    bytes += width.bytes;
    if (bytes > maxBytes) return text.slice(0, index);
    index += width.units - 1;
  }
  return text;
}

// --- Internal helpers ---

/** Consecutive pieces of `text`, each within `maxBytes` UTF-8 bytes; a surrogate pair stays whole. */
function splitUtf8(text: string, maxBytes: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const width = unitWidth(text, index);
    if (bytes + width.bytes > maxBytes) {
      pieces.push(text.slice(start, index));
      start = index;
      bytes = 0;
    }
    bytes += width.bytes;
    index += width.units - 1;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** UTF-8 size of the character at `index` and how many UTF-16 units it takes (a lone surrogate: 3 bytes, as encoders write U+FFFD). */
function unitWidth(
  text: string,
  index: number,
): { bytes: number; units: number } {
  const code = text.charCodeAt(index);
  if (code < 0x80) return ONE;
  if (code < 0x800) return TWO;
  if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
    const next = text.charCodeAt(index + 1);
    if (next >= 0xdc00 && next <= 0xdfff) return PAIR;
  }
  return THREE;
}

const ONE = { bytes: 1, units: 1 };
const TWO = { bytes: 2, units: 1 };
const THREE = { bytes: 3, units: 1 };
const PAIR = { bytes: 4, units: 2 };
