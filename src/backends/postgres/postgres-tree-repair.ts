import type { TreeRepairPlan } from "../../session/tree/tree-repair.js";
import {
  deleteWithTreeRepair,
  type ParentLink,
} from "../../session/tree/tree-repair-driver.js";
import type { PostgresQueryable } from "./postgres-client.js";
import { readCompactionsTouching } from "./postgres-compactions.js";
import {
  LOCKED_WRITE_PREFIX,
  lockedWriteParams,
  type WriteAttempt,
} from "./postgres-locking.js";
import { loadAncestorLinks } from "./postgres-path.js";
import {
  JSON_PARAM,
  RECORD_CHANGE_SQL,
  TEXT_ARRAY_SQL,
  toCount,
} from "./postgres-sql.js";

/**
 * One attempt of a delete with the tree and overlay repair of docs/behavior/messages-and-tree.md
 * (`deleteWithTreeRepair`); this is PostgreSQL's SQL for it, which applies the plan in one
 * statement (re-parent, move or drop overlays, delete) under the session lock. Run by
 * `sessionWrite`, which supplies the lock or the fingerprint to check. Resolves to the number of
 * rows deleted.
 */
export async function deleteWithRepair(
  db: PostgresQueryable,
  sessionId: string,
  ids: readonly string[],
  fingerprint: string | null,
): Promise<WriteAttempt<number>> {
  return deleteWithTreeRepair<ParentLink, WriteAttempt<number>>(
    {
      none: { done: true, value: 0 },
      readTargets: (wanted) =>
        db.query<ParentLink>(
          `SELECT id, parent_id FROM assistant_messages
          WHERE session_id = ? AND id = ANY(${TEXT_ARRAY_SQL}) ORDER BY seq`,
          [sessionId, JSON.stringify(wanted)],
        ),
      readChildren: (parentIds) =>
        db.query<ParentLink>(
          `SELECT id, parent_id FROM assistant_messages
          WHERE session_id = ? AND parent_id = ANY(${TEXT_ARRAY_SQL}) ORDER BY seq`,
          [sessionId, JSON.stringify(parentIds)],
        ),
      readOverlaysTouching: (deletedIds) =>
        readCompactionsTouching(db, sessionId, deletedIds),
      readRange: (toId, fromId) =>
        loadAncestorLinks(db, sessionId, toId, fromId),
      apply: async (
        plan,
        _targets,
        deletedIds,
      ): Promise<WriteAttempt<number>> => {
        const [result] = await db.query<{ ok: boolean; deleted: number }>(
          applySql(),
          applyParams(sessionId, fingerprint, plan, deletedIds),
        );
        return result?.ok
          ? { done: true, value: toCount(result.deleted) }
          : { done: false };
      },
    },
    ids,
  );
}

/** One attempt of `clearMessages`: the session's overlays and messages in one statement. */
export async function clearSession(
  db: PostgresQueryable,
  sessionId: string,
  fingerprint: string | null,
): Promise<WriteAttempt<void>> {
  const [result] = await db.query<{ ok: boolean }>(
    `WITH ${LOCKED_WRITE_PREFIX},
    dropped AS (
      DELETE FROM assistant_compactions WHERE session_id = ? AND (SELECT ok FROM checked)
    ),
    deleted AS (
      DELETE FROM assistant_messages WHERE session_id = ? AND (SELECT ok FROM checked)
    ),
    logged AS (
      SELECT ${RECORD_CHANGE_SQL} AS change WHERE (SELECT ok FROM checked)
    )
    SELECT ok, (SELECT count(*) FROM logged) AS logged FROM checked`,
    [
      ...lockedWriteParams(sessionId, fingerprint),
      sessionId,
      sessionId,
      sessionId,
      "clear",
      "[]",
    ],
  );
  return result?.ok ? { done: true, value: undefined } : { done: false };
}

// --- Internal helpers ---

function applySql(): string {
  return `WITH ${LOCKED_WRITE_PREFIX},
  reparented AS (
    UPDATE assistant_messages AS m SET parent_id = r.parent_id
    FROM json_to_recordset(${JSON_PARAM}) AS r(id TEXT, parent_id TEXT)
    WHERE m.session_id = ? AND m.id = r.id AND (SELECT ok FROM checked)
  ),
  moved AS (
    UPDATE assistant_compactions AS c SET from_message_id = r.from_id, to_message_id = r.to_id
    FROM json_to_recordset(${JSON_PARAM}) AS r(id TEXT, from_id TEXT, to_id TEXT)
    WHERE c.session_id = ? AND c.id = r.id AND (SELECT ok FROM checked)
  ),
  dropped AS (
    DELETE FROM assistant_compactions
    WHERE session_id = ? AND id = ANY(${TEXT_ARRAY_SQL}) AND (SELECT ok FROM checked)
  ),
  deleted AS (
    DELETE FROM assistant_messages
    WHERE session_id = ? AND id = ANY(${TEXT_ARRAY_SQL}) AND (SELECT ok FROM checked)
    RETURNING 1
  ),
  logged AS (
    SELECT ${RECORD_CHANGE_SQL} AS change WHERE (SELECT ok FROM checked)
  )
  SELECT (SELECT ok FROM checked) AS ok, (SELECT count(*) FROM deleted) AS deleted,
    (SELECT count(*) FROM logged) AS logged`;
}

function applyParams(
  sessionId: string,
  fingerprint: string | null,
  plan: TreeRepairPlan,
  deletedIds: readonly string[],
): unknown[] {
  return [
    ...lockedWriteParams(sessionId, fingerprint),
    JSON.stringify(
      plan.reparent.map(({ id, parentId }) => ({ id, parent_id: parentId })),
    ),
    sessionId,
    JSON.stringify(
      plan.moveOverlays.map(({ id, fromMessageId, toMessageId }) => ({
        id,
        from_id: fromMessageId,
        to_id: toMessageId,
      })),
    ),
    sessionId,
    sessionId,
    JSON.stringify(plan.deleteOverlays),
    sessionId,
    JSON.stringify(deletedIds),
    sessionId,
    "delete",
    JSON.stringify(deletedIds),
  ];
}
