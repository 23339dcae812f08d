import type { SqlProvider } from "../../contracts/sql-provider.js";
import { decodeMessage, reviveMessage } from "../../core/message-codec.js";
import { readContentsBySeqs } from "./sql-message-chunks.js";
import { loadPathWithContent, type PathMessages } from "./sql-path.js";

/*
 * The hot path read behind getHistory(): first the walk, a recursive query over the links alone
 * (no content travels through the recursion), then the stored texts in windows of rows fetched by
 * `seq`, each window one comma-joined string and one JSON.parse. Carrying content through the
 * recursion cost about twice as much, and one string for the whole path held every byte of it
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
    raw.chars += text.length;
    keep &&= raw.chars <= keepChars;
    if (keep) raw.windows.push(text);
    else raw.windows = [];
    size = nextWindowRows(size, text.length);
  }
  if (walk.split !== null) {
    raw.whole = wholeByIndex(agent, walk.split, walk.rootFirstSeqs.length);
    for (const [index, json] of raw.whole) values[index] = parseOrNull(json);
  }
  return {
    path: {
      ids: raw.rootFirstIds.slice(),
      messages: values.map(reviveMessage),
    },
    raw: keep ? raw : null,
  };
}

/** Decodes a kept raw path again, root first; `null` when some stored text is not JSON. */
export function decodeRawPath(raw: RawPath): PathMessages | null {
  const values: unknown[] = [];
  for (const window of raw.windows) {
    if (!parseInto(values, window, -1)) return null;
  }
  if (values.length !== raw.rootFirstIds.length) return null;
  for (const [index, json] of raw.whole ?? [])
    values[index] = parseOrNull(json);
  return { ids: raw.rootFirstIds.slice(), messages: values.map(reviveMessage) };
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

/** The links of the path, checked to form one parent chain; `null` when they do not or the id is absent. */
function walkPath(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
): Walk | null {
  const [count] = agent.sql<{ rows: number }>`
    SELECT COUNT(*) AS rows FROM assistant_messages WHERE session_id = ${sessionId}`;
  const bound = Number(count?.rows ?? 0);
  // UNION ALL with a depth bound: cheaper than UNION's duplicate check, and a cycle stops at
  // `bound` rows (no path has more rows than its session), where the length check catches it.
  const [row] = agent.sql<{
    seqs: string;
    ids: string;
    parents: string;
    split: string | null;
  }>`
    WITH RECURSIVE path (seq, id, parent_id, chunked, depth) AS (
      SELECT seq, id, parent_id, chunked_bytes IS NOT NULL, 0 FROM assistant_messages
      WHERE session_id = ${sessionId} AND id = ${leafId}
      UNION ALL
      SELECT m.seq, m.id, m.parent_id, m.chunked_bytes IS NOT NULL, p.depth + 1
        FROM path AS p
        JOIN assistant_messages AS m ON m.session_id = ${sessionId} AND m.id = p.parent_id
      WHERE p.depth < ${bound}
    )
    SELECT json_group_array(seq) AS seqs, json_group_array(id) AS ids,
      json_group_array(parent_id) AS parents,
      group_concat(CASE WHEN chunked THEN depth || ':' || seq END) AS split
    FROM path`;
  if (!row) return null;
  const ids = JSON.parse(row.ids) as string[];
  if (ids.length === 0 || ids.length > bound) return null;
  const parents = JSON.parse(row.parents) as Array<string | null>;
  for (let index = 0; index < ids.length - 1; index++) {
    if (parents[index] !== ids[index + 1]) return null;
  }
  return {
    rootFirstSeqs: (JSON.parse(row.seqs) as number[]).reverse(),
    rootFirstIds: ids.reverse(),
    split: row.split,
  };
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
