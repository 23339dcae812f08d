import { decodeMessage, reviveMessage } from "../../core/message-codec.js";
import { walkToRoot } from "../../core/walk-path.js";
import { withAttachmentBytes } from "./sql-attachments.js";
import type { SessionMessage } from "../../contracts/types.js";
import type { SqlProvider } from "../../contracts/sql-provider.js";
import {
  readContentsBySeqs,
  withWholeContent,
  type StoredContentRow,
} from "./sql-message-chunks.js";

/** A stored row on a path, with its content. */
export interface PathContentRow {
  id: string;
  parent_id: string | null;
  content: string;
}

/** A stored row on a path, with its role and stored UTF-8 size instead of its content. */
export interface PathSizeRow {
  seq: number;
  id: string;
  parent_id: string | null;
  role: string;
  bytes: number;
}

// Every path query walks a recursive CTE over (seq, parent_id) only, so no content travels
// through the recursion and the cost follows the path, not the session. UNION (not UNION ALL)
// drops a row already produced, so a cycle written by raw SQL ends the recursion. There is no
// depth limit. The rows come back unordered; `orderPath` puts them root → leaf with a visited set.

/** The rows of the path to `leafId` with content, root first; `[]` if the id is not in the session. */
export function loadPathWithContent(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
): PathContentRow[] {
  const rows = agent.sql<PathContentRow & StoredContentRow>`
    WITH RECURSIVE path (seq, parent_id) AS (
      SELECT seq, parent_id FROM assistant_messages WHERE session_id = ${sessionId} AND id = ${leafId}
      UNION
      SELECT m.seq, m.parent_id FROM path AS p
        JOIN assistant_messages AS m ON m.session_id = ${sessionId} AND m.id = p.parent_id
    )
    SELECT m.seq AS seq, m.id AS id, m.parent_id AS parent_id, m.content AS content,
      m.chunked_bytes AS chunked_bytes
    FROM path AS p JOIN assistant_messages AS m ON m.seq = p.seq`;
  return orderPath(withWholeContent(agent, rows), leafId);
}

/** The messages of a path, root first: ids, and each message decoded (`null` when unparseable). */
export interface PathMessages {
  ids: string[];
  messages: Array<SessionMessage | null>;
}

/**
 * A path as SQLite returns it from the fast query: the stored message texts joined by commas and
 * their ids, both leaf first. Cheap to keep and to extend by one appended message.
 */
export interface RawPath {
  /** A message split over continuation rows stands here as `null`; its JSON is in `whole`. */
  leafFirstJson: string;
  /** Root first, so an appended message is one `push`. */
  rootFirstIds: string[];
  /** The whole JSON of split messages by root-first index; absent when none is split. */
  whole?: Map<number, string>;
}

/**
 * The path to `leafId` as one string of messages plus the ids (one JSON.parse later instead of a
 * row object and a parse per message). Checks that the rows form one parent chain; `null` when
 * they do not (a cycle, an unexpected order) or the id is not in the session: use
 * `loadPathMessages`, which falls back to row-by-row loading.
 */
export function queryRawPath(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
): RawPath | null {
  const [count] = agent.sql<{ rows: number }>`
    SELECT COUNT(*) AS rows FROM assistant_messages WHERE session_id = ${sessionId}`;
  const bound = Number(count?.rows ?? 0);
  // UNION ALL with a depth bound: cheaper than UNION's duplicate check, and a cycle stops at
  // `bound` rows (no path has more rows than its session), where the length check catches it.
  // A split message joins the text as `null` (its pieces never pass through SQL string functions,
  // which Durable Objects cap at 2 MB); `split` lists their depths and seqs, NULL when none.
  const [row] = agent.sql<{
    messages: string | null;
    ids: string;
    parents: string;
    split: string | null;
  }>`
    WITH RECURSIVE path (seq, id, parent_id, content, chunked, depth) AS (
      SELECT seq, id, parent_id, content, chunked_bytes IS NOT NULL, 0 FROM assistant_messages
      WHERE session_id = ${sessionId} AND id = ${leafId}
      UNION ALL
      SELECT m.seq, m.id, m.parent_id, m.content, m.chunked_bytes IS NOT NULL, p.depth + 1
        FROM path AS p
        JOIN assistant_messages AS m ON m.session_id = ${sessionId} AND m.id = p.parent_id
      WHERE p.depth < ${bound}
    )
    SELECT group_concat(CASE WHEN chunked THEN 'null' ELSE content END, ',') AS messages,
      json_group_array(id) AS ids, json_group_array(parent_id) AS parents,
      group_concat(CASE WHEN chunked THEN depth || ':' || seq END) AS split
    FROM path`;
  if (!row || row.messages === null) return null;
  const ids = JSON.parse(row.ids) as string[];
  const parents = JSON.parse(row.parents) as Array<string | null>;
  if (ids.length > bound) return null;
  for (let index = 0; index < ids.length - 1; index++) {
    if (parents[index] !== ids[index + 1]) return null;
  }
  const raw: RawPath = {
    leafFirstJson: row.messages,
    rootFirstIds: ids.reverse(),
  };
  if (row.split !== null)
    raw.whole = wholeByIndex(agent, row.split, ids.length);
  return raw;
}

/** Decodes a raw path root first; `null` when some stored text is not JSON (use the row path). */
export function decodeRawPath(raw: RawPath): PathMessages | null {
  let values: unknown[];
  try {
    values = JSON.parse(`[${raw.leafFirstJson}]`) as unknown[];
  } catch {
    return null;
  }
  if (values.length !== raw.rootFirstIds.length) return null;
  values.reverse();
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
  const raw = queryRawPath(agent, sessionId, leafId);
  const decoded = raw ? decodeRawPath(raw) : null;
  if (decoded) return decoded;
  const rows = loadPathWithContent(agent, sessionId, leafId);
  return {
    ids: rows.map((entry) => entry.id),
    messages: rows.map((entry) => decodeMessage(entry.content)),
  };
}

/** The rows of the path to `leafId` with role and stored size, root first, without reading content into JS. */
export function loadPathWithSizes(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
): PathSizeRow[] {
  // octet_length (SQLite 3.43+) reads the stored size without loading the text; the CAST
  // fallback gives the same number but makes SQLite read every row's content internally.
  const rows = hasOctetLength(agent)
    ? agent.sql<PathSizeRow>`
      WITH RECURSIVE path (seq, parent_id) AS (
        SELECT seq, parent_id FROM assistant_messages WHERE session_id = ${sessionId} AND id = ${leafId}
        UNION
        SELECT m.seq, m.parent_id FROM path AS p
          JOIN assistant_messages AS m ON m.session_id = ${sessionId} AND m.id = p.parent_id
      )
      SELECT m.seq AS seq, m.id AS id, m.parent_id AS parent_id, m.role AS role,
        COALESCE(m.chunked_bytes, octet_length(m.content)) AS bytes
      FROM path AS p JOIN assistant_messages AS m ON m.seq = p.seq`
    : agent.sql<PathSizeRow>`
      WITH RECURSIVE path (seq, parent_id) AS (
        SELECT seq, parent_id FROM assistant_messages WHERE session_id = ${sessionId} AND id = ${leafId}
        UNION
        SELECT m.seq, m.parent_id FROM path AS p
          JOIN assistant_messages AS m ON m.session_id = ${sessionId} AND m.id = p.parent_id
      )
      SELECT m.seq AS seq, m.id AS id, m.parent_id AS parent_id, m.role AS role,
        COALESCE(m.chunked_bytes, length(CAST(m.content AS BLOB))) AS bytes
      FROM path AS p JOIN assistant_messages AS m ON m.seq = p.seq`;
  // Sizes as read: what attachments add back counts (docs/behavior/storage.md#attachments).
  return withAttachmentBytes(agent, sessionId, orderPath(rows, leafId));
}

/** The number of stored rows on the path to `leafId`; 0 when the id is not in the session. */
export function countPath(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
): number {
  const rows = agent.sql<{ count: number }>`
    WITH RECURSIVE path (seq, parent_id) AS (
      SELECT seq, parent_id FROM assistant_messages WHERE session_id = ${sessionId} AND id = ${leafId}
      UNION
      SELECT m.seq, m.parent_id FROM path AS p
        JOIN assistant_messages AS m ON m.session_id = ${sessionId} AND m.id = p.parent_id
    )
    SELECT COUNT(*) AS count FROM path`;
  return Number(rows[0]?.count ?? 0);
}

/**
 * The `(id, parent_id)` links from `toId` up to and including `fromId` (or to the root when
 * `fromId` is not an ancestor). Used to repair overlays without loading content.
 */
export function loadAncestorLinks(
  agent: SqlProvider,
  sessionId: string,
  toId: string,
  fromId: string,
): Array<{ id: string; parent_id: string | null }> {
  return agent.sql<{ id: string; parent_id: string | null }>`
    WITH RECURSIVE path (seq, id, parent_id) AS (
      SELECT seq, id, parent_id FROM assistant_messages WHERE session_id = ${sessionId} AND id = ${toId}
      UNION
      SELECT m.seq, m.id, m.parent_id FROM path AS p
        JOIN assistant_messages AS m ON m.session_id = ${sessionId} AND m.id = p.parent_id
      WHERE p.id <> ${fromId}
    )
    SELECT id, parent_id FROM path`;
}

// --- Internal helpers ---

/** The whole JSON of the split messages of a raw path, by root-first index. */
function wholeByIndex(
  agent: SqlProvider,
  split: string,
  length: number,
): Map<number, string> {
  // `split` is "depth:seq,depth:seq" (depth 0 = the leaf).
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

const octetLength = new WeakMap<object, boolean>();

function hasOctetLength(agent: SqlProvider): boolean {
  let known = octetLength.get(agent);
  if (known === undefined) {
    try {
      agent.sql`SELECT octet_length('') AS bytes`;
      known = true;
    } catch {
      known = false;
    }
    octetLength.set(agent, known);
  }
  return known;
}

function orderPath<Row extends { id: string; parent_id: string | null }>(
  rows: Row[],
  leafId: string,
): Row[] {
  if (rows.length === 0) return rows;
  const byId = new Map<string, Row>();
  for (const row of rows) byId.set(row.id, row);
  return walkToRoot(leafId, (id) => {
    const row = byId.get(id);
    return row === undefined ? undefined : row.parent_id;
  }).map((id) => byId.get(id)!);
}
