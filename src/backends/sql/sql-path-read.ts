import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import {
  decodeMessage,
  reviveMessage,
} from "../../session/messages/message-codec.js";
import { mayReferenceAttachments } from "../../session/messages/attachments.js";
import { readContentsBySeqs, withinValueLimit } from "./sql-message-chunks.js";
import { sqlTemplate } from "./sql-transaction.js";
import {
  loadPathIdSet,
  loadPathWithContent,
  type PathMessages,
} from "./sql-path.js";

/*
 * The hot path read behind getHistory(): one backward scan of the session's rows by `seq` from the
 * leaf, each statement returning a chunk's links and its stored texts (one JSON array text, one
 * JSON.parse), taking the rows that continue the parent chain and skipping rows of other
 * branches. A heavily branched path, or a parent younger than its child, hands the rest to the
 * recursive query over the links alone, whose texts then come in windows of rows fetched by `seq`.
 * Chunks and windows stay near `WINDOW_CHARS` of text, so a read's peak memory stays near the
 * messages it returns. Reading the links first and the texts in a second pass cost a fifth more
 * in a Durable Object (a third more on the first read after a restart): every row was found twice.
 * SQLite writes each array's brackets too: wrapping the text in JavaScript (`[${texts}]`) made
 * JSON.parse copy every chunk's text once more, and the first read after a restart in a Durable
 * Object took 12% longer (paired over 21 restarts, 72.6 → 64.0 ms on 10,000 messages; 2026-12-05).
 */

/**
 * A path's stored texts as read, in segments that are each a JSON array of stored texts, and its
 * ids. Cheap to keep for a re-read and to extend by one appended message. Only a path without
 * split messages (stored over continuation rows) is kept.
 */
export interface RawPath {
  /** Root first. */
  segments: RawSegment[];
  /** Characters in `segments`. */
  chars: number;
  /** Root first, so an appended message is one `push`. */
  rootFirstIds: string[];
}

/**
 * Stored texts of path rows as one JSON array text. A window or an appended message holds path
 * rows root first. A chunk of the backward scan holds rows leaf first, and may hold rows of other
 * branches: `pick` names the path rows' positions root first; absent, every row is on the path.
 */
export interface RawSegment {
  text: string;
  leafFirst?: true;
  pick?: number[];
}

/** The path read, and its raw form when it is within `keepChars` and may be cached. */
export interface PathRead {
  path: PathMessages;
  raw: RawPath | null;
}

/**
 * Reads the path to `leafId` (see above). Keeps the raw texts for the cache while they stay within
 * `keepChars`. `null` when the rows do not form one parent chain (a cycle written by raw SQL), a
 * row changed between the recursive query and its windows, or some text is not JSON: use
 * `loadPathMessages`, which falls back to row-by-row loading.
 */
export function readPath(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
  keepChars: number,
): PathRead | null {
  const read = new ReadState(keepChars);
  const scan = scanPath(agent, sessionId, leafId, read);
  if (scan === null) return null;
  const { walk, values, scanned } = scan;
  // What the scan left toward the root: its links by the recursive query, its texts in windows
  // by `seq`, root first.
  const older: unknown[] = [];
  const windows: RawSegment[] = [];
  if (scan.scannedRows < walk.seqs.length) {
    const rootFirstSeqs = walk.seqs.slice(scan.scannedRows).reverse();
    let size = FIRST_WINDOW_ROWS;
    for (let start = 0; start < rootFirstSeqs.length;) {
      let seqs: number[] = [];
      const [row] = withinValueLimit(size, (fewer) => {
        seqs = rootFirstSeqs.slice(start, start + fewer);
        return agent.sql<{ messages: string | null; rows: number }>`
          SELECT '[' || group_concat(CASE WHEN m.chunked_bytes IS NULL THEN m.content ELSE 'null' END, ',') || ']'
            AS messages, COUNT(*) AS rows
          FROM json_each(${JSON.stringify(seqs)}) AS j
            CROSS JOIN assistant_messages AS m ON m.seq = j.value`;
      });
      start += seqs.length;
      if (!row || row.messages === null || row.rows !== seqs.length)
        return null;
      const parsed = parseList(row.messages, seqs.length);
      if (parsed === null) return null;
      for (const value of parsed) older.push(value);
      read.note({ text: row.messages }, windows);
      size = nextRows(size, row.messages.length);
    }
  }
  const rootFirstIds = walk.ids.reverse();
  const messages = older;
  for (let index = values.length - 1; index >= 0; index--)
    messages.push(values[index]);
  let whole: Map<number, string> | undefined;
  if (walk.split.length > 0) {
    whole = wholeByIndex(agent, walk.split.join(","), rootFirstIds.length);
    for (const [index, json] of whole) {
      messages[index] = parseOrNull(json);
      read.attachmentFree &&= !mayReferenceAttachments(json);
    }
  }
  return {
    path: {
      ids: rootFirstIds.slice(),
      messages: messages.map(reviveMessage),
      ...(read.attachmentFree ? { attachmentFree: true } : {}),
    },
    // A path with split messages is not kept: their whole texts are read apart, per read.
    raw:
      read.keep && !whole
        ? {
            segments: [...windows, ...scanned.reverse()],
            chars: read.chars,
            rootFirstIds,
          }
        : null,
  };
}

/** What a read has seen of the texts: their size, whether they stay kept, whether they may reference attachments. */
class ReadState {
  chars = 0;
  keep = true;
  attachmentFree = true;

  constructor(private readonly keepChars: number) {}

  /** Counts `segment`'s text and keeps it in `into` while the read stays within `keepChars`. */
  note(segment: RawSegment, into: RawSegment[]): void {
    this.chars += segment.text.length;
    this.attachmentFree &&= !mayReferenceAttachments(segment.text);
    this.keep &&= this.chars <= this.keepChars;
    if (this.keep) into.push(segment);
  }
}

/** Decodes a kept raw path again, root first; `null` when some stored text is not JSON. */
export function decodeRawPath(raw: RawPath): PathMessages | null {
  const values: unknown[] = [];
  let attachmentFree = true;
  for (const segment of raw.segments) {
    const parsed = parseList(segment.text, -1);
    if (parsed === null) return null;
    if (segment.pick)
      for (const index of segment.pick) values.push(parsed[index]);
    else if (segment.leafFirst)
      for (let index = parsed.length - 1; index >= 0; index--)
        values.push(parsed[index]);
    else for (const value of parsed) values.push(value);
    attachmentFree &&= !mayReferenceAttachments(segment.text);
  }
  if (values.length !== raw.rootFirstIds.length) return null;
  return {
    ids: raw.rootFirstIds.slice(),
    messages: values.map(reviveMessage),
    ...(attachmentFree ? { attachmentFree } : {}),
  };
}

/** The path to `leafId` with its messages, root first, however its rows are stored. */
export function loadPathMessages(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
): PathMessages {
  const read = readPath(agent, sessionId, leafId, 0);
  if (read) return read.path;
  const rows = loadPathWithContent(agent, sessionId, leafId);
  return {
    ids: rows.map((entry) => entry.id),
    messages: rows.map((entry) => decodeMessage(entry.content)),
  };
}

/** The ids on the path to `leafId` by the same walk, without content; empty for an unknown id. */
export function pathIdSet(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
): Set<string> {
  const scan = scanPath(agent, sessionId, leafId, null);
  // No single chain (a cycle written by raw SQL): the recursive query visits each id once.
  return scan
    ? new Set(scan.walk.ids)
    : loadPathIdSet(agent, sessionId, leafId);
}

/** The number of stored rows on the path to `leafId` by the same walk; 0 for an unknown id. */
export function pathLength(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
): number {
  const scan = scanPath(agent, sessionId, leafId, null);
  return scan
    ? scan.walk.ids.length
    : loadPathIdSet(agent, sessionId, leafId).size;
}

// --- Internal helpers ---

/**
 * Rows in the first scan chunk and the first window; later ones are sized from the last one's
 * average row to hold about `WINDOW_CHARS` of text. Small chunks are the point: each one's text
 * is garbage once parsed, and below V8's large-object size it dies young, so a read's peak memory
 * stays near the messages it returns.
 */
const FIRST_WINDOW_ROWS = 128;
const WINDOW_CHARS = 65_536;
const MAX_WINDOW_ROWS = 4096;

/** The next chunk's rows: about `WINDOW_CHARS` of text at this one's average row, growing at most fourfold. */
function nextRows(rows: number, chars: number): number {
  const aimed = Math.floor((rows * WINDOW_CHARS) / Math.max(chars, 1));
  return Math.max(1, Math.min(MAX_WINDOW_ROWS, rows * 4, aimed));
}

/** A path found by `scanPath`. */
interface Scan {
  /** The whole path, leaf first. */
  walk: LeafFirst;
  /** The first `scannedRows` of `walk` came from the scan; the rest from the recursive query. */
  scannedRows: number;
  /** With texts: the scanned rows' values and their segments, leaf first. */
  values: unknown[];
  scanned: RawSegment[];
}

/**
 * The path to `leafId`, with the scanned rows' texts when `read` is given; `null` when the rows do
 * not form one parent chain, the id is absent, or a text is not JSON.
 *
 * A parent is nearly always older than its child, so the scan reads the session's rows backwards
 * from the leaf in `seq` order through the `(session_id, seq)` index, taking each row that is the
 * parent it expects and skipping rows of other branches: one ordered index scan instead of two
 * B-tree lookups per step. When it finds mostly other branches' rows, or a parent is younger than
 * its child (an import can write a child first), it hands the rest to the recursive query.
 */
function scanPath(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
  read: ReadState | null,
): Scan | null {
  // 1 or 0: a Durable Object binds numbers, not booleans.
  const texts = read !== null ? 1 : 0;
  const [leaf] = agent.sql<{
    seq: number;
    parent_id: string | null;
    chunked: number;
    text: string | null;
  }>`SELECT seq, parent_id, chunked_bytes IS NOT NULL AS chunked,
      CASE WHEN NOT ${texts} THEN NULL WHEN chunked_bytes IS NULL THEN '[' || content || ']' ELSE '[null]' END AS text
    FROM assistant_messages WHERE session_id = ${sessionId} AND id = ${leafId}`;
  if (!leaf) return null;
  const walk: LeafFirst = { seqs: [], ids: [], split: [] };
  const values: unknown[] = [];
  const scanned: RawSegment[] = [];
  take(walk, leaf.seq, leafId, leaf.chunked);
  if (read) {
    const parsed = parseList(leaf.text ?? "[]", 1);
    if (parsed === null) return null;
    values.push(parsed[0]);
    read.note({ text: leaf.text ?? "[]" }, scanned);
  }
  let expected = leaf.parent_id;
  let before = leaf.seq;
  let rows = FIRST_WINDOW_ROWS;
  let seen = 0;
  // Whether the last chunk's rows filled its stretch of `seq` (see DENSE_SHARE); then the next
  // chunk walks the rowids from `before` down to `floor`, no further.
  let dense = false;
  let floor = 0;
  while (expected !== null) {
    const [chunk] = withinValueLimit(rows, (fewer) => {
      rows = fewer;
      floor = before - Math.ceil(fewer * DENSE_SHARE);
      return agent.sql<ScanChunk>(
        dense ? SCAN_BY_ROWID : SCAN_BY_INDEX,
        texts,
        sessionId,
        before,
        dense ? floor : -Number.MAX_SAFE_INTEGER,
        fewer,
      );
    });
    const seqs = JSON.parse(chunk?.seqs ?? "[]") as number[];
    // No row of the session in the walked stretch: it is not the end; the index goes on below it.
    if (seqs.length === 0 && dense) {
      dense = false;
      before = floor;
      continue;
    }
    if (seqs.length === 0) break;
    // The stretch of `seq` this chunk looked through, and how much of it was the session's.
    const stretch: number =
      dense && seqs.length < rows ? before - floor : before - seqs.at(-1)!;
    dense =
      seqs.length * DENSE_SHARE >= stretch && seqs.length >= DENSE_MIN_ROWS;
    const text = chunk!.texts ?? "[]";
    const parsed = read ? parseList(text, seqs.length) : [];
    if (parsed === null) return null;
    const ids = JSON.parse(chunk!.ids) as string[];
    const parents = JSON.parse(chunk!.parents) as Array<string | null>;
    const chunked = JSON.parse(chunk!.chunked) as number[];
    const taken: number[] = [];
    for (let index = 0; index < seqs.length && expected !== null; index++) {
      if (ids[index] !== expected) continue;
      take(walk, seqs[index]!, expected, chunked[index]!);
      if (read) values.push(parsed[index]);
      taken.push(index);
      expected = parents[index] ?? null;
    }
    read?.note(
      taken.length === seqs.length
        ? { text, leafFirst: true }
        : { text, pick: taken.reverse() },
      scanned,
    );
    seen += seqs.length;
    before = seqs[seqs.length - 1]!;
    // Mostly other branches' rows: following the links costs less from here.
    if (walk.seqs.length * SCAN_MIN_SHARE < seen) break;
    rows = nextRows(rows, text.length);
  }
  const scannedRows = walk.seqs.length;
  if (expected !== null && !walkRest(agent, sessionId, expected, walk))
    return null;
  return { walk, scannedRows, values, scanned };
}

/** The scan goes on while at least one row in this many is on the path. */
const SCAN_MIN_SHARE = 3;

/*
 * The next chunk walks the table itself backwards by `seq` (its rowid), skipping other sessions'
 * rows, when this chunk's rows took at least 9 of every 10 `seq`s of its stretch: the session
 * has the table (nearly) to itself, as in a Durable Object. Through the `(session_id, seq)` index
 * each row costs an index step and a lookup of the row; the rowid walk reads the rows in place,
 * which took a fifth to a quarter off the scan's statements (10,000 rows: 6.4 → 4.8 ms on Node,
 * 12.2 → 10.3 ms on a restarted Durable Object; 2026-12-05). The walk stops at a floor about one
 * chunk's worth of `seq`s below its start, so a stretch of other sessions' rows (a session taken
 * up again after a long pause) costs one chunk of them, and the index takes over again. The rows,
 * their order and the limit are the same either way; only the plan differs. A chunk below
 * DENSE_MIN_ROWS says too little.
 */
const DENSE_SHARE = 10 / 9;
const DENSE_MIN_ROWS = 32;

/**
 * One chunk of the backward scan: the rows' links and their texts as JSON arrays (`?`s: texts
 * wanted, session, below this `seq`, from this `seq`, rows), through the session index or by
 * rowid (see above); the same statement but for the plan.
 */
const scanChunk = (plan: "" | "NOT INDEXED") =>
  sqlTemplate(`SELECT json_group_array(seq) AS seqs, json_group_array(id) AS ids,
      json_group_array(parent_id) AS parents, json_group_array(chunked) AS chunked,
      '[' || group_concat(text, ',') || ']' AS texts
    FROM (SELECT seq, id, parent_id, chunked_bytes IS NOT NULL AS chunked,
        CASE WHEN NOT ? THEN NULL WHEN chunked_bytes IS NULL THEN content ELSE 'null' END AS text
      FROM assistant_messages ${plan} WHERE session_id = ? AND seq < ? AND seq >= ?
      ORDER BY seq DESC LIMIT ?)`);
const SCAN_BY_INDEX = scanChunk("");
const SCAN_BY_ROWID = scanChunk("NOT INDEXED");

interface ScanChunk {
  seqs: string;
  ids: string;
  parents: string;
  chunked: string;
  texts: string | null;
}

/** A path being walked, leaf first; `split` holds "depth:seq" of split messages. */
interface LeafFirst {
  seqs: number[];
  ids: string[];
  split: string[];
}

function take(walk: LeafFirst, seq: number, id: string, chunked: number): void {
  if (chunked) walk.split.push(`${walk.ids.length}:${seq}`);
  walk.seqs.push(seq);
  walk.ids.push(id);
}

/**
 * Follows the links from `fromId` to the root with the recursive query and appends them to `walk`.
 * Like the recursive query, a link to an absent row ends the path. `false` when the links do not
 * end within the session's row count (a cycle written by raw SQL).
 */
function walkRest(
  agent: SqlProvider,
  sessionId: string,
  fromId: string,
  walk: LeafFirst,
): boolean {
  const [count] = agent.sql<{ rows: number }>`
    SELECT COUNT(*) AS rows FROM assistant_messages WHERE session_id = ${sessionId}`;
  const bound = Number(count?.rows ?? 0);
  // UNION ALL with a depth bound: cheaper than UNION's duplicate check, and a cycle stops at
  // `bound` rows (no path has more rows than its session), where the length check catches it.
  const [row] = agent.sql<{
    seqs: string;
    ids: string;
    parents: string;
    chunked: string;
  }>`
    WITH RECURSIVE path (seq, id, parent_id, chunked, depth) AS (
      SELECT seq, id, parent_id, chunked_bytes IS NOT NULL, 0 FROM assistant_messages
      WHERE session_id = ${sessionId} AND id = ${fromId}
      UNION ALL
      SELECT m.seq, m.id, m.parent_id, m.chunked_bytes IS NOT NULL, p.depth + 1
        FROM path AS p
        JOIN assistant_messages AS m ON m.session_id = ${sessionId} AND m.id = p.parent_id
      WHERE p.depth < ${bound}
    )
    SELECT json_group_array(seq) AS seqs, json_group_array(id) AS ids,
      json_group_array(parent_id) AS parents, json_group_array(chunked) AS chunked
    FROM path`;
  if (!row) return false;
  const ids = JSON.parse(row.ids) as string[];
  if (walk.ids.length + ids.length > bound) return false;
  const parents = JSON.parse(row.parents) as Array<string | null>;
  const seqs = JSON.parse(row.seqs) as number[];
  const chunked = JSON.parse(row.chunked) as number[];
  for (let index = 0; index < ids.length; index++) {
    if (index > 0 && parents[index - 1] !== ids[index]) return false;
    take(walk, seqs[index]!, ids[index]!, chunked[index]!);
  }
  return true;
}

/** Parses a JSON array of stored texts; `null` when it is not JSON or not `expected` values (any count for -1). */
function parseList(texts: string, expected: number): unknown[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(texts);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  return expected >= 0 && parsed.length !== expected ? null : parsed;
}

/** The whole JSON of the split messages of a path, by root-first index. */
function wholeByIndex(
  agent: SqlProvider,
  split: string,
  length: number,
): Map<number, string> {
  const entries = split.split(",").map((entry) => entry.split(":").map(Number));
  const whole = readContentsBySeqs(
    agent,
    entries.map(([, seq]) => seq!),
  );
  return new Map(
    entries.map(([depth, seq]) => [length - 1 - depth!, whole.get(seq!) ?? ""]),
  );
}

function parseOrNull(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return null;
  }
}
