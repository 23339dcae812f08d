import { walkToRoot } from "../../session/tree/walk-path.js";
import { withAttachmentBytes } from "./sql-attachments.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import {
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

// The recursive path queries (the walk's fallback and the id-set reads, sql-path-read.ts) follow
// (seq, parent_id) only, so no content travels through the recursion and the cost follows the
// path, not the session. UNION (not UNION ALL) drops a row already produced, so a cycle written
// by raw SQL ends the recursion. There is no depth limit. The rows come back unordered; `orderPath` puts them root → leaf with a visited set.

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
  /**
   * Set when no stored text of the path names an attachment (one native search over the texts
   * read), so a read restores nothing and skips the per-part scan of every message.
   */
  attachmentFree?: true;
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

/** The ids on the path to `leafId`, in no order, from the links alone; empty for an unknown id. */
export function loadPathIdSet(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
): Set<string> {
  const rows = agent.sql<{ id: string }>`
    WITH RECURSIVE path (id, parent_id) AS (
      SELECT id, parent_id FROM assistant_messages WHERE session_id = ${sessionId} AND id = ${leafId}
      UNION
      SELECT m.id, m.parent_id FROM path AS p
        JOIN assistant_messages AS m ON m.session_id = ${sessionId} AND m.id = p.parent_id
    )
    SELECT id FROM path`;
  return new Set(rows.map((row) => row.id));
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

const octetLength = new WeakMap<object, boolean>();

/** Whether the store has `octet_length` (SQLite 3.43+), asked once per store. */
export function hasOctetLength(agent: SqlProvider): boolean {
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
