import { ATTACHMENT_BYTES_SQL } from "./postgres-attachments.js";
import { walkToRoot } from "../../session/tree/walk-path.js";
import type { PostgresQueryable } from "./postgres-client.js";
import { isoSql, LATEST_LEAF_SQL, toCount } from "./postgres-sql.js";
import {
  compactionFromRow,
  type CompactionRow,
} from "../../session/messages/stored-rows.js";
import type { StoredCompaction } from "../../session/contracts/types.js";

/** A stored row on a path, with its content. */
export interface PathContentRow {
  id: string;
  parent_id: string | null;
  content: string;
}

/** Most rows and stored bytes (content and attachments, as `loadPathWithSizes` counts them). */
export interface PathBounds {
  messages: number;
  bytes: number;
}

/** A stored row on a path, with its role and stored UTF-8 size instead of its content. */
export interface PathSizeRow {
  id: string;
  parent_id: string | null;
  role: string;
  bytes: number;
}

// Every path query walks a recursive CTE over (id, parent_id) only, so no content travels
// through the recursion. Each step looks the parent up by primary key in a LATERAL subquery
// (`OFFSET 0` keeps it one): as a plain join, a table without statistics (new, or just written)
// made the planner hash-join every row of the session at every step, O(n²) on a long chain. UNION (not UNION ALL) drops a row already produced, so a cycle written
// by raw SQL ends the recursion; there is no depth limit. `leafId = null` starts at the latest
// leaf. The rows come back unordered; `orderPath` puts them root → leaf with a visited set.

/** The rows of the path to `leafId` (latest leaf when `null`) with content, root first. */
export async function loadPathWithContent(
  db: PostgresQueryable,
  sessionId: string,
  leafId: string | null,
): Promise<PathContentRow[]> {
  const rows = await db.query<PathContentRow & { target: string }>(
    `${pathCte(leafId)}
    SELECT p.id, p.parent_id, m.content, (SELECT id FROM target) AS target
    FROM path AS p JOIN assistant_messages AS m ON m.session_id = ? AND m.id = p.id`,
    [...pathParams(sessionId, leafId), sessionId],
  );
  return orderPath(rows);
}

/**
 * `loadPathWithContent` and the session's overlays (`readCompactions`: oldest first, superseded
 * ones included) in one statement, so a history read is one round trip and both come from one
 * snapshot. The overlays travel as one JSON array in one extra row.
 */
export async function loadPathAndOverlays(
  db: PostgresQueryable,
  sessionId: string,
  leafId: string | null,
  within?: PathBounds,
): Promise<{
  rows: PathContentRow[];
  overlays: StoredCompaction[];
  fits: boolean;
}> {
  // With `within`, the content comes only when the whole path fits (the sizes are
  // `octet_length`, which reads no content); a larger path answers `fits: false` and no rows,
  // still in the one statement. Without it the statement has no `fits` column at all: every
  // path row would carry a NULL that the driver parses and sets on each row object, a share of
  // every unbounded history read (getHistory at depth 10,000 read about a tenth slower with it).
  const bounded = within !== undefined;
  const fits = bounded
    ? `, fits (ok) AS (SELECT count(*) <= ? AND
          COALESCE(sum(octet_length(m.content) + ${ATTACHMENT_BYTES_SQL}), 0) <= ?
        FROM path AS p JOIN assistant_messages AS m ON m.session_id = ? AND m.id = p.id)`
    : "";
  const rows = await db.query<
    PathContentRow & {
      target: string;
      overlays: string | null;
      fits?: boolean | null;
    }
  >(
    `${pathCte(leafId)}${fits}
    SELECT p.id, p.parent_id, m.content, (SELECT id FROM target) AS target,
      NULL::text AS overlays${bounded ? ", NULL::boolean AS fits" : ""}
    FROM path AS p JOIN assistant_messages AS m ON m.session_id = ? AND m.id = p.id
    ${bounded ? "WHERE (SELECT ok FROM fits)" : ""}
    UNION ALL
    SELECT NULL, NULL, NULL, NULL, (
      SELECT json_agg(json_build_object('id', c.id, 'summary', c.summary,
          'from_message_id', c.from_message_id, 'to_message_id', c.to_message_id,
          'created_at', ${isoSql("c.created_at")}, 'meta', c.meta::text) ORDER BY c.seq)::text
      FROM assistant_compactions AS c WHERE c.session_id = ?)${
        bounded ? ", (SELECT ok FROM fits)" : ""
      }`,
    [
      ...pathParams(sessionId, leafId),
      ...(bounded ? [within.messages, within.bytes, sessionId] : []),
      sessionId,
      sessionId,
    ],
  );
  const overlayRow = rows.find((row) => row.id === null);
  const overlays = overlayRow?.overlays
    ? (JSON.parse(overlayRow.overlays) as CompactionRow[]).map(
        compactionFromRow,
      )
    : [];
  return {
    rows: orderPath(rows.filter((row) => row.id !== null)),
    overlays,
    fits: !bounded || overlayRow?.fits !== false,
  };
}

/** The rows of the path with role and stored size (`octet_length`, which reads no content), root first. */
export async function loadPathWithSizes(
  db: PostgresQueryable,
  sessionId: string,
  leafId: string | null,
): Promise<PathSizeRow[]> {
  const rows = await db.query<PathSizeRow & { target: string }>(
    `${pathCte(leafId)}
    SELECT p.id, p.parent_id, m.role, octet_length(m.content) + ${ATTACHMENT_BYTES_SQL} AS bytes,
      (SELECT id FROM target) AS target
    FROM path AS p JOIN assistant_messages AS m ON m.session_id = ? AND m.id = p.id`,
    [...pathParams(sessionId, leafId), sessionId],
  );
  return orderPath(rows).map((row) => ({ ...row, bytes: toCount(row.bytes) }));
}

/**
 * The leaf (latest when `null`) and its ancestors while their running size is within
 * `maxBytes` (or fewer rows than `floor` are read), the first row over it included, root-most
 * first; `reachedRoot` when the walk ended at the path's start. And the whole path's stored size,
 * summed in the same statement (one round trip), so only the window's rows travel: on a long
 * path, its every row's size was most of what a recent-history read carried. Sizes count
 * attachments as read; no more steps than the session has rows, so a cycle ends.
 */
export async function loadRecentPath(
  db: PostgresQueryable,
  sessionId: string,
  leafId: string | null,
  maxBytes: number,
  floor: number,
): Promise<{
  rows: PathSizeRow[];
  reachedRoot: boolean;
  totalBytes: number;
}> {
  const rowBytes = `octet_length(m.content) + ${ATTACHMENT_BYTES_SQL}`;
  const read = await db.query<{
    id: string | null;
    parent_id: string | null;
    role: string | null;
    used: string | number | null;
    depth: number | null;
    total: string | number | null;
  }>(
    `${pathCte(leafId)},
    up (id, parent_id, depth, used) AS (
      SELECT m.id, m.parent_id, 0, ${rowBytes} FROM assistant_messages AS m
      WHERE m.session_id = ? AND m.id = (SELECT id FROM target)
      UNION ALL
      SELECT m.id, m.parent_id, p.depth + 1, p.used + ${rowBytes} FROM up AS p
        CROSS JOIN LATERAL (SELECT session_id, id, parent_id, content FROM assistant_messages
          WHERE session_id = ? AND id = p.parent_id OFFSET 0) AS m
      WHERE (p.used <= ? OR p.depth + 1 < ?)
        AND p.depth < (SELECT count(*) FROM assistant_messages WHERE session_id = ?)
    )
    SELECT p.id, p.parent_id, m.role, p.used, p.depth, NULL AS total
    FROM up AS p JOIN assistant_messages AS m ON m.session_id = ? AND m.id = p.id
    UNION ALL
    SELECT NULL, NULL, NULL, NULL, NULL, (SELECT sum(${rowBytes})
      FROM path AS p JOIN assistant_messages AS m ON m.session_id = ? AND m.id = p.id)`,
    [
      ...pathParams(sessionId, leafId),
      sessionId,
      sessionId,
      maxBytes,
      floor,
      sessionId,
      sessionId,
      sessionId,
    ],
  );
  const totalBytes = toCount(read.find((row) => row.id === null)?.total);
  const upward = read
    .filter((row) => row.id !== null)
    .sort((a, b) => Number(a.depth) - Number(b.depth));
  // Leaf first, each row's own size from the running sum; a repeated id (a cycle written by raw
  // SQL) ends the path there, as `walkToRoot` ends it.
  const seen = new Set<string>();
  const leafFirst: PathSizeRow[] = [];
  let cycle = false;
  for (const [index, row] of upward.entries()) {
    if (seen.has(row.id!)) {
      cycle = true;
      break;
    }
    seen.add(row.id!);
    const before = index === 0 ? 0 : toCount(upward[index - 1]!.used);
    leafFirst.push({
      id: row.id!,
      parent_id: row.parent_id,
      role: row.role!,
      bytes: toCount(row.used) - before,
    });
  }
  const top = upward.at(-1);
  // The walk went on from its last row unless the budget (or the floor) was met there: when it
  // would have gone on and found nothing, that row is the root (or its parent is not stored).
  const reachedRoot =
    top === undefined ||
    cycle ||
    top.parent_id === null ||
    toCount(top.used) <= maxBytes ||
    Number(top.depth) + 1 < floor;
  return { rows: leafFirst.reverse(), reachedRoot, totalBytes };
}

/** The ids on the path (latest leaf when `null`), in no order, from the links alone. */
export async function loadPathIdSet(
  db: PostgresQueryable,
  sessionId: string,
  leafId: string | null,
): Promise<Set<string>> {
  const rows = await db.query<{ id: string }>(
    `${pathCte(leafId)} SELECT id FROM path`,
    pathParams(sessionId, leafId),
  );
  return new Set(rows.map((row) => row.id));
}

/** The number of stored rows on the path; 0 for an unknown id or an empty session. */
export async function countPath(
  db: PostgresQueryable,
  sessionId: string,
  leafId: string | null,
): Promise<number> {
  const [row] = await db.query<{ count: string }>(
    `${pathCte(leafId)} SELECT count(*) AS count FROM path`,
    pathParams(sessionId, leafId),
  );
  return toCount(row?.count);
}

/**
 * The `(id, parent_id)` links from `toId` up to and including `fromId` (or up to the root when
 * `fromId` is not an ancestor). Used to repair overlays without loading content.
 */
export async function loadAncestorLinks(
  db: PostgresQueryable,
  sessionId: string,
  toId: string,
  fromId: string,
): Promise<Array<{ id: string; parent_id: string | null }>> {
  return db.query(
    `WITH RECURSIVE path (id, parent_id) AS (
      SELECT id, parent_id FROM assistant_messages WHERE session_id = ? AND id = ?
      UNION
      SELECT m.id, m.parent_id FROM path AS p
        CROSS JOIN LATERAL (SELECT id, parent_id FROM assistant_messages
          WHERE session_id = ? AND id = p.parent_id OFFSET 0) AS m
      WHERE p.id <> ?
    )
    SELECT id, parent_id FROM path`,
    [sessionId, toId, sessionId, fromId],
  );
}

// --- Internal helpers ---

function pathCte(leafId: string | null): string {
  return `WITH RECURSIVE target (id) AS (${leafId === null ? LATEST_LEAF_SQL : "SELECT ?::text"}),
    path (id, parent_id) AS (
      SELECT id, parent_id FROM assistant_messages
      WHERE session_id = ? AND id = (SELECT id FROM target)
      UNION
      SELECT m.id, m.parent_id FROM path AS p
        CROSS JOIN LATERAL (SELECT id, parent_id FROM assistant_messages
          WHERE session_id = ? AND id = p.parent_id OFFSET 0) AS m
    )`;
}

function pathParams(sessionId: string, leafId: string | null): unknown[] {
  return [leafId ?? sessionId, sessionId, sessionId];
}

function orderPath<
  Row extends { id: string; parent_id: string | null; target: string },
>(rows: Row[]): Row[] {
  const target = rows[0]?.target;
  if (target === undefined) return [];
  const byId = new Map<string, Row>();
  for (const row of rows) byId.set(row.id, row);
  return walkToRoot(target, (id) => {
    const row = byId.get(id);
    return row === undefined ? undefined : row.parent_id;
  }).map((id) => byId.get(id)!);
}
