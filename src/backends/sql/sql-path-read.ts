import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import {
  decodeMessage,
  reviveMessage,
} from "../../session/core/message-codec.js";
import { mayReferenceAttachments } from "../../session/core/attachments.js";
import { readContentsBySeqs } from "./sql-message-chunks.js";
import {
  loadPathIdSet,
  loadPathWithContent,
  type PathMessages,
} from "./sql-path.js";

/*
 * The hot path read behind getHistory(): first the walk over the links alone (a backward scan of
 * the session's links by `seq`, finished by a recursive query when the path is heavily branched or
 * a parent is younger than its child; no content travels through either), then the stored texts
 * in windows of rows fetched by `seq`, each window one comma-joined string and one JSON.parse.
 * Carrying content through the walk cost about twice as much, and one string for the whole path held every byte of it
 * twice (in SQLite and in JS) at the peak; a window holds a few MiB at most.
 */

/**
 * A path's stored texts as read: root-first windows of comma-joined JSON texts (a message split
 * over continuation rows stands as `null`, its JSON in `whole`), and the ids. Cheap to keep for a
 * re-read and to extend by one appended message.
 */
export interface RawPath {
  windows: string[];
  /** Characters in `windows`. */
  chars: number;
  /** Root first, so an appended message is one `push`. */
  rootFirstIds: string[];
  /** The whole JSON of split messages by root-first index; absent when none is split. */
  whole?: Map<number, string>;
}

/** The path read, and its raw form when it is within `keepChars` and may be cached. */
export interface PathRead {
  path: PathMessages;
  raw: RawPath | null;
}

/**
 * Reads the path to `leafId` (see above). Keeps the raw texts for the cache while they stay within
 * `keepChars`. `null` when the rows do not form one parent chain (a cycle written by raw SQL), a
 * row changed between the walk and the windows, or some text is not JSON: use
 * `loadPathMessages`, which falls back to row-by-row loading.
 */
export function readPath(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
  keepChars: number,
): PathRead | null {
  const walk = walkPath(agent, sessionId, leafId);
  if (walk === null) return null;
  const raw: RawPath = {
    windows: [],
    chars: 0,
    rootFirstIds: walk.rootFirstIds,
  };
  let keep = walk.split === null;
  let attachmentFree = true;
  const values: unknown[] = [];
  let size = FIRST_WINDOW_ROWS;
  for (let start = 0; start < walk.rootFirstSeqs.length;) {
    const seqs = walk.rootFirstSeqs.slice(start, start + size);
    start += seqs.length;
    const [row] = agent.sql<{ messages: string | null; rows: number }>`
      SELECT group_concat(CASE WHEN m.chunked_bytes IS NULL THEN m.content ELSE 'null' END, ',')
        AS messages, COUNT(*) AS rows
      FROM json_each(${JSON.stringify(seqs)}) AS j
        CROSS JOIN assistant_messages AS m ON m.seq = j.value`;
    if (!row || row.messages === null || row.rows !== seqs.length) return null;
    const text = row.messages;
    if (!parseInto(values, text, seqs.length)) return null;
    attachmentFree &&= !mayReferenceAttachments(text);
    raw.chars += text.length;
    keep &&= raw.chars <= keepChars;
    if (keep) raw.windows.push(text);
    else raw.windows = [];
    size = nextWindowRows(size, text.length);
  }
  if (walk.split !== null) {
    raw.whole = wholeByIndex(agent, walk.split, walk.rootFirstSeqs.length);
    for (const [index, json] of raw.whole) {
      values[index] = parseOrNull(json);
      attachmentFree &&= !mayReferenceAttachments(json);
    }
  }
  return {
    path: {
      ids: raw.rootFirstIds.slice(),
      messages: values.map(reviveMessage),
      ...(attachmentFree ? { attachmentFree } : {}),
    },
    raw: keep ? raw : null,
  };
}

/** Decodes a kept raw path again, root first; `null` when some stored text is not JSON. */
export function decodeRawPath(raw: RawPath): PathMessages | null {
  const values: unknown[] = [];
  let attachmentFree = true;
  for (const window of raw.windows) {
    if (!parseInto(values, window, -1)) return null;
    attachmentFree &&= !mayReferenceAttachments(window);
  }
  if (values.length !== raw.rootFirstIds.length) return null;
  for (const [index, json] of raw.whole ?? []) {
    values[index] = parseOrNull(json);
    attachmentFree &&= !mayReferenceAttachments(json);
  }
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
  const walk = walkPath(agent, sessionId, leafId);
  // No single chain (a cycle written by raw SQL): the recursive query visits each id once.
  return walk
    ? new Set(walk.rootFirstIds)
    : loadPathIdSet(agent, sessionId, leafId);
}

/** The number of stored rows on the path to `leafId` by the same walk; 0 for an unknown id. */
export function pathLength(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
): number {
  const walk = walkPath(agent, sessionId, leafId);
  return walk
    ? walk.rootFirstIds.length
    : loadPathIdSet(agent, sessionId, leafId).size;
}

// --- Internal helpers ---

/**
 * Rows in the first content window; later windows grow or shrink to stay near `WINDOW_CHARS`.
 * Small windows are the point: each window's text is garbage once parsed, and below V8's
 * large-object size it dies young, so a read's peak memory stays near the messages it returns.
 */
const FIRST_WINDOW_ROWS = 128;
const WINDOW_CHARS = 65_536;
const MAX_WINDOW_ROWS = 4096;

function nextWindowRows(rows: number, chars: number): number {
  if (chars > WINDOW_CHARS) return Math.max(1, rows >> 1);
  if (chars < WINDOW_CHARS / 4) return Math.min(MAX_WINDOW_ROWS, rows * 2);
  return rows;
}

interface Walk {
  rootFirstSeqs: number[];
  rootFirstIds: string[];
  /** "depth:seq" of split messages (depth 0 = the leaf), comma-joined; `null` when none. */
  split: string | null;
}

/**
 * The links of the path, leaf first while walking; `null` when they do not form one parent chain
 * or the id is absent.
 *
 * A parent is nearly always older than its child, so the walk first reads the session's links
 * backwards from the leaf in `seq` order through the `(session_id, seq)` index, taking each row
 * that is the parent it expects and skipping rows of other branches. That is one ordered index
 * scan instead of two B-tree lookups per step, about a third of the recursive query's time at
 * depth 10,000. When the scan finds mostly other branches' rows, or a parent is younger than its
 * child (an import can write a child first), it hands the rest to the recursive query.
 */
function walkPath(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
): Walk | null {
  const [leaf] = agent.sql<{
    seq: number;
    parent_id: string | null;
    chunked: number;
  }>`SELECT seq, parent_id, chunked_bytes IS NOT NULL AS chunked FROM assistant_messages
    WHERE session_id = ${sessionId} AND id = ${leafId}`;
  if (!leaf) return null;
  const walk: LeafFirst = { seqs: [], ids: [], split: [] };
  take(walk, leaf.seq, leafId, leaf.chunked);
  let expected = leaf.parent_id;
  let before = leaf.seq;
  let rows = SCAN_FIRST_ROWS;
  let scanned = 0;
  while (expected !== null) {
    const [chunk] = agent.sql<{
      seqs: string;
      ids: string;
      parents: string;
      chunked: string;
    }>`SELECT json_group_array(seq) AS seqs, json_group_array(id) AS ids,
        json_group_array(parent_id) AS parents, json_group_array(chunked) AS chunked
      FROM (SELECT seq, id, parent_id, chunked_bytes IS NOT NULL AS chunked
        FROM assistant_messages WHERE session_id = ${sessionId} AND seq < ${before}
        ORDER BY seq DESC LIMIT ${rows})`;
    const seqs = JSON.parse(chunk?.seqs ?? "[]") as number[];
    if (seqs.length === 0) break;
    const ids = JSON.parse(chunk!.ids) as string[];
    const parents = JSON.parse(chunk!.parents) as Array<string | null>;
    const chunked = JSON.parse(chunk!.chunked) as number[];
    for (let index = 0; index < seqs.length && expected !== null; index++) {
      if (ids[index] !== expected) continue;
      take(walk, seqs[index]!, expected, chunked[index]!);
      expected = parents[index] ?? null;
    }
    scanned += seqs.length;
    before = seqs[seqs.length - 1]!;
    // Mostly other branches' rows: following the links costs less from here.
    if (walk.seqs.length * SCAN_MIN_SHARE < scanned) break;
    rows = Math.min(SCAN_MAX_ROWS, rows * 2);
  }
  if (expected !== null && !walkRest(agent, sessionId, expected, walk))
    return null;
  return {
    rootFirstSeqs: walk.seqs.reverse(),
    rootFirstIds: walk.ids.reverse(),
    split: walk.split.length === 0 ? null : walk.split.join(","),
  };
}

/** Rows of the first backward scan; each later scan doubles, up to `SCAN_MAX_ROWS`. */
const SCAN_FIRST_ROWS = 256;
const SCAN_MAX_ROWS = 4096;
/** The scan goes on while at least one row in this many is on the path. */
const SCAN_MIN_SHARE = 3;

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

/** Parses a comma-joined window onto `values`; `false` when it is not JSON or not `expected` values long. */
function parseInto(
  values: unknown[],
  window: string,
  expected: number,
): boolean {
  let parsed: unknown[];
  try {
    parsed = JSON.parse(`[${window}]`) as unknown[];
  } catch {
    return false;
  }
  if (expected >= 0 && parsed.length !== expected) return false;
  for (const value of parsed) values.push(value);
  return true;
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
