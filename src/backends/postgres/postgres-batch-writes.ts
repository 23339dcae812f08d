import type { SessionMessage } from "../../session/contracts/types.js";
import type { encodeForStorage } from "../../session/messages/attachments.js";
import { attachmentRows } from "./postgres-attachments.js";
import type { PostgresQueryable } from "./postgres-client.js";
import { SESSION_LOCK_SQL } from "./postgres-locking.js";
import { indexedTextParams, TOOL_OUTPUTS_SQL } from "./postgres-search-text.js";
import { JSON_PARAM, TIMESTAMPTZ_PARAM } from "./postgres-sql.js";
import type { InsertChecks } from "./postgres-writes.js";

/*
 * A chain of messages written by one statement (`writeMessages` with more than one message,
 * `appendAll`): one round trip whatever its length, atomic on every connection kind (also on an
 * `execute`-style connection, which has no transaction), where a statement per message in a
 * transaction cost n + 2 round trips, each holding the session lock a little longer.
 */

/** A message as stored: its JSON and the attachments moved out of it. */
type EncodedMessage = ReturnType<typeof encodeForStorage>;

/** What the batch insert reports, as `writeMessages` does. */
export interface InsertedBatch {
  /** Per message, in order: whether this statement inserted its row. */
  inserted: boolean[];
  /** The stored parent of the first message when it was inserted, else `null`. */
  firstParentId: string | null;
  /** The statement also touched (or created) the session's registry row. */
  registryTouched?: boolean;
  /** `false`: `requireRegistered` was asked and the session has no registry row. */
  registered?: boolean;
  /** `false`: `requireParent` was asked and the given parent is not in the session. */
  parentFound?: boolean;
}

/**
 * Inserts `messages` as one chain in one statement: the session lock, the first parent resolved
 * with a fresh snapshot (`arbor_resolve_parent`, as a single insert does), then every row from one
 * JSON parameter, each under the message before it in the batch, in batch order (so `seq` follows
 * it). Idempotent by id: an id already in the session, or earlier in the batch, is left as it is
 * and reported `false`, and the next message still goes under it. One change is recorded for the
 * rows inserted (their ids in order, as the SQLite and in-memory stores record a batch), and each
 * inserted row's attachments are referenced, all in the same statement: everything or nothing.
 * `checks` work as in `insertMessage`.
 */
export async function insertMessages(
  db: PostgresQueryable,
  sessionId: string,
  messages: readonly SessionMessage[],
  encoded: readonly EncodedMessage[],
  parentId: string | null | undefined,
  checks: InsertChecks,
): Promise<InsertedBatch> {
  const { touchedAt, requireRegistered } = checks;
  const requireParent = checks.requireParent && typeof parentId === "string";
  const registry = requireRegistered
    ? `,
    registry AS MATERIALIZED (
      SELECT EXISTS (SELECT 1 FROM assistant_sessions WHERE id = ?) AS present FROM locked
    )`
    : "";
  const touch =
    touchedAt === null
      ? ""
      : `,
    registered AS (
      INSERT INTO assistant_sessions (id, name, created_at, updated_at)
      SELECT ?, ?, stamp.at, stamp.at
      FROM (SELECT 1 FROM inserted LIMIT 1) AS any_row,
        (SELECT date_trunc('milliseconds', ${TIMESTAMPTZ_PARAM}) AS at) AS stamp
      ON CONFLICT (id) DO UPDATE SET updated_at = EXCLUDED.updated_at
    )`;
  const rows = encoded.map((entry, index) => {
    const message = messages[index]!;
    const [full, text] = indexedTextParams(message);
    return {
      id: message.id,
      role: message.role,
      content: entry.json,
      full,
      text,
      attachments: attachmentRows(entry.attachments),
    };
  });
  const [answer] = await db.query<{
    ids: string | null;
    registered: boolean;
    parent_id: string | null;
    parent_found: boolean;
  }>(
    `WITH locked AS MATERIALIZED (SELECT ${SESSION_LOCK_SQL} AS locked)${registry},
    parent AS MATERIALIZED (
      SELECT arbor_resolve_parent(?, ?, ?::boolean) AS id FROM ${
        requireRegistered ? "registry WHERE registry.present" : "locked"
      }
    ),
    batch AS MATERIALIZED (
      SELECT e.ord, e.value->>'id' AS id, e.value->>'role' AS role,
        e.value->>'content' AS content, e.value->>'full' AS full_text,
        e.value->>'text' AS plain_text, e.value->'attachments' AS attachments,
        lag(e.value->>'id') OVER (ORDER BY e.ord) AS previous,
        e.ord = min(e.ord) OVER (PARTITION BY e.value->>'id') AS first_of_id
      FROM json_array_elements(${JSON_PARAM}) WITH ORDINALITY AS e(value, ord)
    ),
    inserted AS (
      INSERT INTO assistant_messages (id, session_id, parent_id, role, content, text_content, created_at)
      SELECT b.id, ?, CASE WHEN b.ord = 1 THEN parent.id ELSE b.previous END, b.role, b.content,
        COALESCE((SELECT b.full_text WHERE ${TOOL_OUTPUTS_SQL}), b.plain_text), clock_timestamp()
      FROM batch AS b, parent
      WHERE b.first_of_id${requireParent ? " AND parent.id IS NOT NULL" : ""}
      ORDER BY b.ord
      ON CONFLICT (session_id, id) DO NOTHING
      RETURNING seq, id
    ),
    attached AS MATERIALIZED (
      SELECT i.seq, i.id, arbor_attach(?, i.id, b.attachments) AS attached
      FROM inserted AS i JOIN batch AS b ON b.id = i.id AND b.first_of_id
    )${touch}
    SELECT (SELECT json_agg(a.id ORDER BY a.seq) FROM attached AS a)::text AS ids,
      (SELECT arbor_record_change(?, ?, jsonb_agg(a.id ORDER BY a.seq))
        FROM attached AS a HAVING count(*) > 0) AS change,
      ${requireRegistered ? "registry.present" : "true"} AS registered,
      parent.id AS parent_id, parent.id IS NOT NULL AS parent_found
    FROM ${requireRegistered ? "registry" : "locked"} LEFT JOIN parent ON true`,
    [
      sessionId,
      ...(requireRegistered ? [sessionId] : []),
      sessionId,
      typeof parentId === "string" ? parentId : null,
      parentId === undefined,
      JSON.stringify(rows),
      sessionId,
      sessionId,
      ...(touchedAt === null ? [] : [sessionId, sessionId, touchedAt]),
      sessionId,
      "append",
    ],
  );
  const none = messages.map(() => false);
  if (answer?.registered === false)
    return { inserted: none, firstParentId: null, registered: false };
  if (requireParent && answer?.parent_found === false)
    return { inserted: none, firstParentId: null, parentFound: false };
  const stored = new Set<string>(
    answer?.ids ? (JSON.parse(answer.ids) as string[]) : [],
  );
  // Only the first entry of an id can have gone in: a later one met the row it wrote.
  const seen = new Set<string>();
  const inserted = messages.map(({ id }) => {
    const first = !seen.has(id);
    seen.add(id);
    return first && stored.has(id);
  });
  const firstParentId = inserted[0] ? (answer?.parent_id ?? null) : null;
  return touchedAt !== null && stored.size > 0
    ? { inserted, firstParentId, registryTouched: true }
    : { inserted, firstParentId };
}
