import { encodeForStorage } from "../../session/messages/attachments.js";
import { attachmentRows } from "./postgres-attachments.js";
import { ArborError } from "../../session/errors/index.js";
import type { ImportRecords } from "../../session/contracts/provider.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import type { PostgresQueryable } from "./postgres-client.js";
import {
  LOCKED_WRITE_PREFIX,
  lockedWriteParams,
  type WriteAttempt,
} from "./postgres-locking.js";
import { indexedTextParams, TOOL_OUTPUTS_SQL } from "./postgres-search-text.js";
import {
  JSON_PARAM,
  RECORD_CHANGE_SQL,
  TEXT_ARRAY_SQL,
} from "./postgres-sql.js";

/**
 * One attempt of `importRecords` (docs/behavior/manager.md): inserts exported messages as they were (ids,
 * parents, insertion order, times) and their overlays, optionally replacing the session's rows,
 * and moves the stored roots of `records.reattach` under the messages it inserts, in one
 * statement under the session lock. Throws `MESSAGE_EXISTS` and writes nothing when an id
 * is taken (without `replace`). Overlay ids are kept unless another session already uses them.
 */
export async function importSessionRecords(
  db: PostgresQueryable,
  sessionId: string,
  records: ImportRecords,
  fingerprint: string | null,
): Promise<WriteAttempt<void>> {
  const replace = records.replace === true;
  const messageIds = records.messages.map((record) => record.message.id);
  if (!replace && messageIds.length > 0) {
    const [taken] = await db.query<{ id: string }>(
      `SELECT id FROM assistant_messages WHERE session_id = ? AND id = ANY(${TEXT_ARRAY_SQL}) LIMIT 1`,
      [sessionId, JSON.stringify(messageIds)],
    );
    if (taken) {
      throw new ArborError(
        "MESSAGE_EXISTS",
        `[arbor] Message "${taken.id}" already exists in session "${sessionId}"; import with replace to overwrite`,
      );
    }
  }
  const overlayIds = records.compactions.map((overlay) => overlay.id);
  const takenOverlays = new Set<string>();
  if (overlayIds.length > 0) {
    for (const row of await db.query<{ id: string }>(
      `SELECT id FROM assistant_compactions
      WHERE id = ANY(${TEXT_ARRAY_SQL}) AND NOT (session_id = ? AND ?::boolean)`,
      [JSON.stringify(overlayIds), sessionId, replace],
    ))
      takenOverlays.add(row.id);
  }
  // Each message's attachments, for `arbor_attach` (all messages on replace: old references go).
  const attached: Array<{ id: string; attachments: unknown }> = [];
  const messages = records.messages.map(
    ({ message, parentId, createdAt }, ord) => ({
      ord,
      id: message.id,
      parent_id: parentId,
      role: message.role,
      content: storedContent(message, replace, attached),
      ...textColumns(message),
      created_at: isoOrNull(createdAt),
    }),
  );
  // Only under a message of this import, and never with `replace` (the rows it clears are gone).
  const inserting = new Set(messageIds);
  const reattach = replace
    ? []
    : (records.reattach ?? []).filter(({ parentId }) =>
        inserting.has(parentId),
      );
  const overlays = records.compactions.map((overlay, ord) => ({
    ord,
    id: takenOverlays.has(overlay.id) ? crypto.randomUUID() : overlay.id,
    summary: overlay.summary,
    from_id: overlay.fromMessageId,
    to_id: overlay.toMessageId,
    created_at: isoOrNull(overlay.createdAt),
    meta: overlay.meta ? JSON.stringify(overlay.meta) : null,
  }));
  const [result] = await db.query<{ ok: boolean }>(
    `WITH ${LOCKED_WRITE_PREFIX},
    dropped AS (
      DELETE FROM assistant_compactions
      WHERE session_id = ? AND ?::boolean AND (SELECT ok FROM checked) RETURNING 1
    ),
    cleared AS (
      DELETE FROM assistant_messages
      WHERE session_id = ? AND ?::boolean AND (SELECT ok FROM checked) RETURNING 1
    ),
    -- Reading the counts of the deletes makes them run first, so replaced ids are free.
    inserted AS (
      INSERT INTO assistant_messages (id, session_id, parent_id, role, content, text_content, created_at)
      SELECT r.id, ?, r.parent_id, r.role, r.content,
        COALESCE(CASE WHEN ${TOOL_OUTPUTS_SQL} THEN r.full_text END, r.text_content),
        COALESCE(r.created_at::timestamptz, clock_timestamp())
      FROM json_to_recordset(${JSON_PARAM})
        AS r(ord INTEGER, id TEXT, parent_id TEXT, role TEXT, content TEXT, text_content TEXT, full_text TEXT, created_at TEXT)
      WHERE (SELECT ok FROM checked) AND (SELECT count(*) FROM cleared) >= 0
      ORDER BY r.ord
      RETURNING 1
    ),
    -- A root stays where it is when it is no longer one (moved or deleted since it was read).
    reattached AS (
      UPDATE assistant_messages AS m SET parent_id = r.parent_id
      FROM json_to_recordset(${JSON_PARAM}) AS r(id TEXT, parent_id TEXT)
      WHERE m.session_id = ? AND m.id = r.id AND m.parent_id IS NULL
        AND (SELECT ok FROM checked)
      RETURNING 1
    ),
    overlays AS (
      INSERT INTO assistant_compactions
        (id, session_id, summary, from_message_id, to_message_id, created_at, meta)
      SELECT r.id, ?, r.summary, r.from_id, r.to_id,
        COALESCE(r.created_at::timestamptz, clock_timestamp()), r.meta::jsonb
      FROM json_to_recordset(${JSON_PARAM})
        AS r(ord INTEGER, id TEXT, summary TEXT, from_id TEXT, to_id TEXT, created_at TEXT, meta TEXT)
      WHERE (SELECT ok FROM checked) AND (SELECT count(*) FROM dropped) >= 0
      ORDER BY r.ord
      RETURNING 1
    ),
    logged AS (
      SELECT ${RECORD_CHANGE_SQL} AS change WHERE (SELECT ok FROM checked)
    ),
    attached AS (
      SELECT arbor_attach(?, a.id, a.attachments) AS attached
      FROM json_to_recordset(${JSON_PARAM}) AS a(id TEXT, attachments JSON)
      WHERE (SELECT ok FROM checked) AND (SELECT count(*) FROM inserted) >= 0
    )
    SELECT (SELECT ok FROM checked) AS ok,
      (SELECT count(*) FROM inserted) + (SELECT count(*) FROM overlays) AS written,
      (SELECT count(*) FROM logged) AS logged,
      (SELECT count(*) FROM attached) AS attached`,
    [
      ...lockedWriteParams(sessionId, fingerprint),
      sessionId,
      replace,
      sessionId,
      replace,
      sessionId,
      JSON.stringify(messages),
      JSON.stringify(
        reattach.map(({ id, parentId }) => ({ id, parent_id: parentId })),
      ),
      sessionId,
      sessionId,
      JSON.stringify(overlays),
      sessionId,
      "import",
      JSON.stringify([...messageIds, ...reattach.map(({ id }) => id)]),
      sessionId,
      JSON.stringify(attached),
    ],
  );
  return result?.ok ? { done: true, value: undefined } : { done: false };
}

// --- Internal helpers ---

function isoOrNull(value: unknown): string | null {
  if (typeof value !== "string") return null;
  return Number.isNaN(Date.parse(value)) ? null : value;
}

/** A message's stored JSON; its attachments (if any, or all on replace) go to `attached`. */
function storedContent(
  message: ImportRecords["messages"][number]["message"],
  replace: boolean,
  attached: Array<{ id: string; attachments: unknown }>,
): string {
  const { json, attachments } = encodeForStorage(message);
  if (replace || attachments.length > 0)
    attached.push({
      id: message.id,
      attachments: attachmentRows(attachments),
    });
  return json;
}

/** A message's search-text columns: without and (when they differ) with tool outputs. */
function textColumns(message: SessionMessage): {
  text_content: string;
  full_text: string | null;
} {
  const [full, text] = indexedTextParams(message);
  return { text_content: text, full_text: full };
}
