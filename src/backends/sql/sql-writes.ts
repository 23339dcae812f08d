import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import type { ExtractedAttachment } from "../../session/messages/attachments.js";
import {
  releaseAttachments,
  replaceAttachments,
  storeAttachments,
} from "./sql-attachments.js";
import {
  noteChange,
  recordChange,
  recordDeletion,
  withoutAppendNotices,
} from "./sql-changes.js";
import type { LatestLeafTracker } from "./sql-latest-leaf.js";
import {
  insertContinuations,
  replaceContinuations,
  type SplitContent,
} from "./sql-message-chunks.js";
import { markSessionStale, markUpdatedStale } from "./sql-search.js";
import { deleteWithRepair } from "./sql-tree-repair.js";
import { nowIso } from "../../session/state/now-iso.js";
import { atomically, sqlTemplate } from "./sql-transaction.js";

/*
 * The message writes of one session (docs/behavior/messages-and-tree.md). Each writes the row, its
 * continuation chunks, its attachment references and its change notice together, so they commit
 * or roll back as one. The provider keeps its caches (latest leaf, path) in step afterwards.
 */

/** docs/behavior/messages-and-tree.md: undefined → latest leaf, null → root, an id of this session → it, else a root. */
export function resolveParent(
  agent: SqlProvider,
  sessionId: string,
  latestLeaf: LatestLeafTracker,
  parentId: string | null | undefined,
): string | null {
  if (parentId === undefined) return latestLeaf.current();
  if (typeof parentId !== "string") return null;
  const [row] = agent.sql<{ found: number }>`
    SELECT 1 AS found FROM assistant_messages WHERE session_id = ${sessionId} AND id = ${parentId}`;
  return row ? parentId : null;
}

/**
 * Inserts `message` under `parentId`, stored as `split` with `extracted` attachments moved out;
 * its `seq`, or `null` (and no write) when the id already exists in this session. Runs inside the
 * caller's transaction, which also resolved the parent. The append notice is the insert trigger's
 * (sql-changes.ts); a batch pauses it and records one for all its messages.
 */
export function insertMessageRow(
  agent: SqlProvider,
  sessionId: string,
  message: SessionMessage,
  parentId: string | null,
  split: SplitContent,
  extracted: readonly ExtractedAttachment[],
): number | null {
  const [row] = agent.sql<{ seq: number }>`
    INSERT INTO assistant_messages (id, session_id, parent_id, role, content, chunked_bytes, created_at)
    VALUES (${message.id}, ${sessionId}, ${parentId}, ${message.role}, ${split.head}, ${split.chunkedBytes}, ${nowIso()})
    ON CONFLICT (session_id, id) DO NOTHING
    RETURNING seq`;
  if (!row) return null;
  insertContinuations(agent, row.seq, split.continuations);
  storeAttachments(agent, sessionId, message.id, extracted);
  // Not indexed here: the search index catches up on the next search (catchUpIndex, sql-search.ts).
  return row.seq;
}

/**
 * `appendMessage`'s write: resolves the parent (as `resolveParent` does) and inserts `message` in
 * one statement, whose trigger also records the change notice, then its continuation chunks and
 * attachments. The latest leaf is the tracker's cached answer when the same statement finds it
 * still valid (still the session's newest row, still childless), else the newest childless row.
 * Returns the row's `seq` (`null` when the statement did not report it, see `appendOnLeaf`) and
 * stored parent, or `null` (and no write) when the id is taken. A message with continuations or
 * attachments runs inside the caller's transaction; a plain one is atomic on its own.
 */
export function appendMessageRow(
  agent: SqlProvider,
  sessionId: string,
  latestLeaf: LatestLeafTracker,
  message: SessionMessage,
  parentId: string | null | undefined,
  split: SplitContent,
  extracted: readonly ExtractedAttachment[],
): { seq: number | null; parentId: string | null } | null {
  const { id, role } = message;
  const now = nowIso();
  let rows: Array<{ seq: number; parent_id: string | null }>;
  if (parentId === undefined) {
    const cached = latestLeaf.candidate();
    if (
      cached &&
      split.chunkedBytes === null &&
      extracted.length === 0 &&
      latestLeaf.leafAppends()
    ) {
      if (appendOnLeaf(agent, sessionId, cached.id, message, split.head, now)) {
        noteChange(agent);
        return { seq: null, parentId: cached.id };
      }
      latestLeaf.leafAppendRefused();
    }
    // COALESCE evaluates its second argument only when the cached leaf no longer holds. It holds
    // while it is still the session's newest row and childless. `seq` is AUTOINCREMENT, never
    // reused, so the session's `MAX(seq)` equal to the cached `seq` is the cached row itself: no
    // lookup of that row (about a tenth of an append in a Durable Object). One VALUES row with
    // the parent as a scalar subquery, not INSERT … SELECT: SQLite runs the SELECT of an INSERT …
    // SELECT that reads its own table as a coroutine through a temporary table, which cost a
    // tenth of the statement in a Durable Object and an eighth on Node (measured 2026-12-05).
    rows = agent.sql`
      INSERT INTO assistant_messages (id, session_id, parent_id, role, content, chunked_bytes, created_at)
      VALUES (${id}, ${sessionId}, COALESCE(
        (SELECT ${cached?.id ?? null}
          WHERE (SELECT MAX(seq) FROM assistant_messages WHERE session_id = ${sessionId}) = ${cached?.seq ?? -1}
            AND NOT EXISTS (SELECT 1 FROM assistant_messages AS k
              WHERE k.session_id = ${sessionId} AND k.parent_id = ${cached?.id ?? null})),
        (SELECT m.id FROM assistant_messages AS m
          WHERE m.session_id = ${sessionId}
            AND NOT EXISTS (SELECT 1 FROM assistant_messages AS k
              WHERE k.session_id = ${sessionId} AND k.parent_id = m.id)
          ORDER BY m.seq DESC LIMIT 1)),
        ${role}, ${split.head}, ${split.chunkedBytes}, ${now})
      ON CONFLICT (session_id, id) DO NOTHING
      RETURNING seq, parent_id`;
  } else {
    // A string parent is kept only when it is in this session; anything else makes a root.
    const wanted = typeof parentId === "string" ? parentId : null;
    rows = agent.sql`
      INSERT INTO assistant_messages (id, session_id, parent_id, role, content, chunked_bytes, created_at)
      VALUES (${id}, ${sessionId},
        (SELECT p.id FROM assistant_messages AS p WHERE p.session_id = ${sessionId} AND p.id = ${wanted}),
        ${role}, ${split.head}, ${split.chunkedBytes}, ${now})
      ON CONFLICT (session_id, id) DO NOTHING
      RETURNING seq, parent_id`;
  }
  const [row] = rows;
  if (!row) return null;
  insertContinuations(agent, row.seq, split.continuations);
  storeAttachments(agent, sessionId, id, extracted);
  noteChange(agent);
  return { seq: row.seq, parentId: row.parent_id ?? null };
}

/**
 * The usual append, where one process writes the session: `message` under `leafId`, the tracker's
 * latest leaf, without `RETURNING` or `ON CONFLICT`. `true` when inserted. When `leafId` is no
 * longer the latest leaf (not the session's newest row, or it has a child), the statement refuses
 * instead of choosing another parent (`json()` of a non-JSON text raises, and CASE evaluates it
 * only then), so the parent stored is always `leafId` and needs no reporting; a taken id fails on
 * the unique index. Either way nothing is written and `false` sends the caller to the statement
 * that resolves the parent and reports it. The row's `seq` goes unreported: `RETURNING` cost about
 * 2 µs of a Durable Object append's 22, and `ON CONFLICT` with the seq-based leaf check about as
 * much (measured 2026-12-05). Its leaf check finds the newest row by the `(session_id, seq)` index
 * and compares ids, so the next append needs no `seq` either.
 */
function appendOnLeaf(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
  message: SessionMessage,
  content: string,
  now: string,
): boolean {
  try {
    agent.sql`
      INSERT INTO assistant_messages (id, session_id, parent_id, role, content, created_at)
      VALUES (${message.id}, ${sessionId}, ${leafId}, ${message.role}, ${content},
        CASE WHEN (SELECT n.id FROM assistant_messages AS n WHERE n.session_id = ${sessionId}
              ORDER BY n.seq DESC LIMIT 1) = ${leafId}
            AND NOT EXISTS (SELECT 1 FROM assistant_messages AS k
              WHERE k.session_id = ${sessionId} AND k.parent_id = ${leafId})
          THEN ${now} ELSE json('not the latest leaf') END)`;
    return true;
  } catch {
    return false;
  }
}

/** A message encoded for its row: `split` content and the attachments moved out of it. */
export interface EncodedRow {
  message: SessionMessage;
  split: SplitContent;
  extracted: readonly ExtractedAttachment[];
}

/**
 * Inserts `rows` in order, each under the one before it and the first under `parentId`, with one
 * change notice for those inserted; per row its `seq` or `null` for a taken id. Runs inside the
 * caller's transaction, which also resolved the parent.
 */
export function insertMessageChain(
  agent: SqlProvider,
  sessionId: string,
  rows: readonly EncodedRow[],
  parentId: string | null,
): Array<number | null> {
  const seqs: Array<number | null> = [];
  const insertedIds: string[] = [];
  withoutAppendNotices(agent, () =>
    insertChainRows(agent, sessionId, rows, parentId, seqs, insertedIds),
  );
  if (insertedIds.length > 0)
    recordChange(agent, sessionId, "append", insertedIds);
  return seqs;
}

function insertChainRows(
  agent: SqlProvider,
  sessionId: string,
  rows: readonly EncodedRow[],
  parentId: string | null,
  seqs: Array<number | null>,
  insertedIds: string[],
): void {
  const now = nowIso();
  let parent = parentId;
  for (let index = 0; index < rows.length;) {
    if (plainRows(rows, index)) {
      const values: unknown[] = [];
      for (let at = index; at < index + CHAIN_ROWS; at++) {
        const { message, split } = rows[at]!;
        values.push(
          message.id,
          sessionId,
          parent,
          message.role,
          split.head,
          now,
        );
        parent = message.id;
      }
      const byId = new Map(
        agent
          .sql<{ seq: number; id: string }>(CHAIN_INSERT, ...values)
          .map((row) => [row.id, row.seq]),
      );
      for (let at = index; at < index + CHAIN_ROWS; at++) {
        const { id } = rows[at]!.message;
        const seq = byId.get(id) ?? null;
        byId.delete(id); // a second row with the same id in the batch was not inserted
        seqs.push(seq);
        if (seq !== null) insertedIds.push(id);
      }
      index += CHAIN_ROWS;
      continue;
    }
    const { message, split, extracted } = rows[index]!;
    const seq = insertMessageRow(
      agent,
      sessionId,
      message,
      parent,
      split,
      extracted,
    );
    seqs.push(seq);
    if (seq !== null) insertedIds.push(message.id);
    parent = message.id;
    index++;
  }
}

/*
 * A batch writes its plain rows (no continuation chunks, no attachments) CHAIN_ROWS to a
 * statement: one statement per row cost a third of `appendAll`'s time on a file, and more in a
 * Durable Object, where every statement crosses into the runtime. 16 rows of 6 values stay under
 * the 100 bound parameters a Durable Object accepts per statement.
 */
const CHAIN_ROWS = 16;
const CHAIN_INSERT = sqlTemplate(
  `INSERT INTO assistant_messages (id, session_id, parent_id, role, content, created_at) VALUES ${Array(
    CHAIN_ROWS,
  )
    .fill("(?, ?, ?, ?, ?, ?)")
    .join(", ")}
  ON CONFLICT (session_id, id) DO NOTHING
  RETURNING seq, id`,
);

/** True when the CHAIN_ROWS rows from `index` are all plain (see CHAIN_ROWS). */
function plainRows(rows: readonly EncodedRow[], index: number): boolean {
  if (index + CHAIN_ROWS > rows.length) return false;
  for (let at = index; at < index + CHAIN_ROWS; at++) {
    const { split, extracted } = rows[at]!;
    if (split.chunkedBytes !== null || extracted.length > 0) return false;
  }
  return true;
}

/**
 * Replaces content and role of the message with this id, atomically, and marks its index row
 * stale; a no-op (index untouched) if absent.
 */
export function updateMessageRow(
  agent: SqlProvider,
  sessionId: string,
  message: SessionMessage,
  split: SplitContent,
  extracted: readonly ExtractedAttachment[],
): void {
  atomically(agent, () => {
    const [row] = agent.sql<{ seq: number }>`
      UPDATE assistant_messages
      SET content = ${split.head}, chunked_bytes = ${split.chunkedBytes}, role = ${message.role}
      WHERE session_id = ${sessionId} AND id = ${message.id}
      RETURNING seq`;
    if (!row) return;
    replaceContinuations(agent, row.seq, split.continuations);
    replaceAttachments(agent, sessionId, message.id, extracted);
    // The index row is rewritten at the next search (catchUpIndex), not here.
    markUpdatedStale(agent, row.seq);
    recordChange(agent, sessionId, "update", [message.id]);
  });
}

/** Deletes these messages atomically, repairing the tree around them; how many rows went. */
export function deleteMessageRows(
  agent: SqlProvider,
  sessionId: string,
  ids: readonly string[],
): number {
  return atomically(agent, () => {
    recordDeletion(agent, sessionId, ids);
    releaseAttachments(agent, sessionId, ids);
    return deleteWithRepair(agent, sessionId, ids);
  });
}

/** Deletes every row of the session atomically and records the clear. */
export function clearSession(agent: SqlProvider, sessionId: string): void {
  atomically(agent, () => {
    clearSessionRows(agent, sessionId);
    recordChange(agent, sessionId, "clear", []);
  });
}

/**
 * Deletes the session's messages, overlays and attachment references, and marks their index rows
 * stale (the next search removes them); callers hold the transaction.
 */
export function clearSessionRows(agent: SqlProvider, sessionId: string): void {
  markSessionStale(agent, sessionId);
  agent.sql`DELETE FROM assistant_messages WHERE session_id = ${sessionId}`;
  agent.sql`DELETE FROM assistant_compactions WHERE session_id = ${sessionId}`;
  releaseAttachments(agent, sessionId, null);
}
