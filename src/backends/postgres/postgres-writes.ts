import { RECORD_CHANGE_SQL, TIMESTAMPTZ_PARAM } from "./postgres-sql.js";
import type { encodeForStorage } from "../../session/messages/attachments.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import { ATTACH_SQL, attachmentParam } from "./postgres-attachments.js";
import type { PostgresQueryable } from "./postgres-client.js";
import { SESSION_LOCK_SQL } from "./postgres-locking.js";
import { indexedTextParams, INDEXED_TEXT_SQL } from "./postgres-search-text.js";

/*
 * The single-message writes of a session (docs/behavior/messages-and-tree.md). Each is one
 * statement that also records its change and stores the message's attachments, so the row, its
 * change notice and its attachment references commit together or not at all.
 */

/** A message as stored: its JSON and the attachments moved out of it. */
type EncodedMessage = ReturnType<typeof encodeForStorage>;

/** What one insert reports: whether a row went in, under which parent, and the registry's part. */
export interface InsertedMessage {
  inserted: boolean;
  /** The stored parent (`null` = a root); `null` when nothing was inserted. */
  parentId: string | null;
  /** The statement also touched (or created) the session's registry row. */
  registryTouched?: boolean;
  /** `false`: `requireRegistered` was asked and the session has no registry row. */
  registered?: boolean;
  /** `false`: `requireParent` was asked and the given parent is not in the session. */
  parentFound?: boolean;
}

/** What an insert checks and touches besides the row (`WriteMessagesOptions`). */
export interface InsertChecks {
  /** Also set the session's registry `updated_at` to this time (registering it without a row). */
  touchedAt: string | null;
  /** Write only if the session has a registry row. */
  requireRegistered: boolean;
  /** With a string parent: write only if it is in the session. */
  requireParent: boolean;
}

/**
 * Inserts `message`, stored as `encoded` (`encodeForStorage()`), in one statement that takes the
 * session lock, resolves the parent with a fresh snapshot (`arbor_resolve_parent`: the latest leaf
 * when `parentId` is `undefined`) and inserts, so concurrent appends from any number of processes
 * form a chain. Says under which parent the row went; writes nothing when the id already exists
 * in this session.
 *
 * With `touchedAt`, a row it inserts also sets the session's registry `updated_at` to it, and
 * registers a session without a row (named by its id), in the same statement: the touch a
 * manager makes after an append, committed with the message or not at all. The row lock on
 * `assistant_sessions` is taken after the session lock, the order every writer follows.
 *
 * With `requireRegistered` the registry row, and with `requireParent` a given parent, is looked
 * up under the session lock: the insert happens only when they are there, and the statement
 * always answers one row saying what it found, so a refused append costs no read before it.
 */
export async function insertMessage(
  db: PostgresQueryable,
  sessionId: string,
  message: SessionMessage,
  encoded: EncodedMessage,
  parentId: string | null | undefined,
  checks: InsertChecks,
): Promise<InsertedMessage> {
  const { touchedAt, requireRegistered } = checks;
  const requireParent = checks.requireParent && typeof parentId === "string";
  const touch =
    touchedAt === null
      ? ""
      : `,
    registered AS (
      INSERT INTO assistant_sessions (id, name, created_at, updated_at)
      SELECT ?, ?, stamp.at, stamp.at
      FROM inserted, (SELECT date_trunc('milliseconds', ${TIMESTAMPTZ_PARAM}) AS at) AS stamp
      ON CONFLICT (id) DO UPDATE SET updated_at = EXCLUDED.updated_at
    )`;
  const registry = requireRegistered
    ? `,
    registry AS MATERIALIZED (
      SELECT EXISTS (SELECT 1 FROM assistant_sessions WHERE id = ?) AS present FROM locked
    )`
    : "";
  // Without a check the statement answers the inserted row only (none when the id was taken);
  // with one it always answers a row: when nothing went in, the second branch says what was
  // missing (the registry row is looked at first, so a missing session reads as such).
  const answer =
    requireRegistered || requireParent
      ? `, true AS registered, true AS parent_found
    FROM inserted
    UNION ALL
    SELECT NULL, NULL, NULL, NULL, ${
      requireRegistered ? "registry.present" : "true"
    }, ${requireParent ? "parent.id IS NOT NULL" : "true"}
    FROM ${requireRegistered ? "registry" : "locked"} LEFT JOIN parent ON true
    WHERE NOT EXISTS (SELECT 1 FROM inserted)`
      : `
    FROM inserted`;
  const rows = await db.query<{
    seq: string | null;
    parent_id: string | null;
    registered?: boolean;
    parent_found?: boolean;
  }>(
    `WITH locked AS MATERIALIZED (SELECT ${SESSION_LOCK_SQL} AS locked)${registry},
    parent AS MATERIALIZED (
      SELECT arbor_resolve_parent(?, ?, ?::boolean) AS id FROM ${
        requireRegistered ? "registry WHERE registry.present" : "locked"
      }
    ),
    inserted AS (
      INSERT INTO assistant_messages (id, session_id, parent_id, role, content, text_content, created_at)
      SELECT ?, ?, parent.id, ?, ?, ${INDEXED_TEXT_SQL}, clock_timestamp() FROM parent${
        requireParent ? " WHERE parent.id IS NOT NULL" : ""
      }
      ON CONFLICT (session_id, id) DO NOTHING
      RETURNING seq, parent_id
    )${touch}
    SELECT seq, parent_id, ${RECORD_CHANGE_SQL} AS change, ${ATTACH_SQL} AS attached${answer}`,
    [
      sessionId,
      ...(requireRegistered ? [sessionId] : []),
      sessionId,
      typeof parentId === "string" ? parentId : null,
      parentId === undefined,
      message.id,
      sessionId,
      message.role,
      encoded.json,
      ...indexedTextParams(message),
      ...(touchedAt === null ? [] : [sessionId, sessionId, touchedAt]),
      sessionId,
      "append",
      JSON.stringify([message.id]),
      sessionId,
      message.id,
      attachmentParam(encoded.attachments),
    ],
  );
  const [inserted] = rows;
  if (inserted?.registered === false)
    return { inserted: false, parentId: null, registered: false };
  if (inserted?.parent_found === false)
    return { inserted: false, parentId: null, parentFound: false };
  if (!inserted || inserted.seq === null)
    return { inserted: false, parentId: null };
  return {
    inserted: true,
    parentId: inserted.parent_id ?? null,
    ...(touchedAt === null ? {} : { registryTouched: true }),
  };
}

/**
 * Replaces content, role and search text of the stored message with this id; a no-op if absent.
 * Takes the session lock first, like every write that records a change, so the changes of one
 * session commit in `seq` order.
 */
export async function updateStoredMessage(
  db: PostgresQueryable,
  sessionId: string,
  message: SessionMessage,
  encoded: EncodedMessage,
): Promise<void> {
  await db.query(
    `WITH locked AS MATERIALIZED (SELECT ${SESSION_LOCK_SQL} AS locked),
    updated AS (
      UPDATE assistant_messages SET content = ?, role = ?, text_content = ${INDEXED_TEXT_SQL}
      FROM locked WHERE session_id = ? AND id = ? RETURNING 1
    )
    SELECT ${RECORD_CHANGE_SQL}, ${ATTACH_SQL} FROM updated`,
    [
      sessionId,
      encoded.json,
      message.role,
      ...indexedTextParams(message),
      sessionId,
      message.id,
      sessionId,
      "update",
      JSON.stringify([message.id]),
      sessionId,
      message.id,
      attachmentParam(encoded.attachments),
    ],
  );
}
