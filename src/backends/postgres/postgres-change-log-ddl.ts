import { ADVISORY_LOCK_NAMESPACE } from "./postgres-locking.js";
import {
  CHANGE_CHANNEL,
  CHANGE_LOG_RETENTION,
  TRIMMED_SEQ_KEY,
  TRIMMED_XID_KEY,
} from "./postgres-change-log.js";

/**
 * The change log and the first `arbor_record_change()` (schema migration v2, as released): it
 * took one database-wide advisory lock until commit before drawing the next `seq`, which
 * serialized every write of the database. Replaced by `recordChangeStatements()` (v4).
 */
export function changeLogStatements(): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS arbor_changes (
      seq BIGSERIAL PRIMARY KEY,
      session_id TEXT NOT NULL,
      type TEXT NOT NULL,
      ids JSONB NOT NULL,
      at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
    )`,
    `CREATE OR REPLACE FUNCTION arbor_record_change(p_session TEXT, p_type TEXT, p_ids JSONB)
    RETURNS BIGINT LANGUAGE plpgsql AS $$
    DECLARE
      v_seq BIGINT;
    BEGIN
      PERFORM pg_advisory_xact_lock(${CHANGE_LOCK_NAMESPACE}, 0);
      INSERT INTO arbor_changes (session_id, type, ids) VALUES (p_session, p_type, p_ids)
        RETURNING seq INTO v_seq;
      IF v_seq % ${TRIM_EVERY} = 0 THEN
        DELETE FROM arbor_changes WHERE seq <= v_seq - ${CHANGE_LOG_RETENTION};
      END IF;
      PERFORM pg_notify('${CHANGE_CHANNEL}', v_seq::text);
      RETURN v_seq;
    END $$`,
  ];
}

/**
 * `arbor_record_change()` without the database-wide lock (schema migration v4; replaces the v2
 * function in place). Writes of one session are ordered by the session lock every write path
 * takes first (`SESSION_LOCK_SQL`), so their `seq` order is commit order; writes of different
 * sessions may commit out of `seq` order, which the reader tolerates (`ChangeReader`). The
 * function makes sure its transaction holds a transaction id before it draws the `seq`: the
 * reader proves a `seq` final once every transaction id assigned before it was drawn has ended.
 *
 * It no longer notifies: a `NOTIFY` inside the writing transaction takes PostgreSQL's
 * database-wide notification lock from pre-commit to the end, so commits that notify flush one at
 * a time (8 writers reached a third of a bare INSERT's rate). The writer announces after its
 * commit instead (`ANNOUNCE_SQL`, at most once per `ANNOUNCE_DELAY_MS` per client), and readers
 * also poll now and then, so a lost announcement costs a delay, never an event. The step also
 * adds the index on `seq` that newest-first search walks.
 */
export function recordChangeStatements(): string[] {
  return [
    `CREATE OR REPLACE FUNCTION arbor_record_change(p_session TEXT, p_type TEXT, p_ids JSONB)
    RETURNS BIGINT LANGUAGE plpgsql AS $$
    DECLARE
      v_seq BIGINT;
    BEGIN
      PERFORM txid_current();
      INSERT INTO arbor_changes (session_id, type, ids) VALUES (p_session, p_type, p_ids)
        RETURNING seq INTO v_seq;
      IF v_seq % ${TRIM_EVERY} = 0 THEN
        DELETE FROM arbor_changes WHERE seq <= v_seq - ${CHANGE_LOG_RETENTION};
      END IF;
      RETURN v_seq;
    END $$`,
    // Newest-first search walks it (docs/behavior/search.md#ranking-limits-and-results).
    `CREATE INDEX IF NOT EXISTS idx_assistant_msg_seq ON assistant_messages (seq)`,
  ];
}

/**
 * Resumable positions (schema migration v6; docs/behavior/events-and-audit.md, "Resuming"): each
 * change-log row records the id of the transaction that wrote it (`xid`, filled by the column's
 * default, so writers of an older build fill it too; rows from before the step get 0, which
 * every snapshot sees, so they are never replayed). `arbor_record_change()` now also records, in
 * `arbor_meta`, the highest `seq` and `xid` each trim removed: a resumed watch whose position
 * may not have seen a trimmed row gets a `reset` instead of a silent gap.
 */
export function resumableChangeLogStatements(): string[] {
  return [
    `ALTER TABLE arbor_changes ADD COLUMN IF NOT EXISTS xid BIGINT NOT NULL DEFAULT 0`,
    `ALTER TABLE arbor_changes ALTER COLUMN xid SET DEFAULT txid_current()`,
    `CREATE INDEX IF NOT EXISTS idx_arbor_changes_xid ON arbor_changes (xid)`,
    `CREATE OR REPLACE FUNCTION arbor_record_change(p_session TEXT, p_type TEXT, p_ids JSONB)
    RETURNS BIGINT LANGUAGE plpgsql AS $$
    DECLARE
      v_seq BIGINT;
      v_trimmed_seq BIGINT;
      v_trimmed_xid BIGINT;
    BEGIN
      PERFORM txid_current();
      INSERT INTO arbor_changes (session_id, type, ids) VALUES (p_session, p_type, p_ids)
        RETURNING seq INTO v_seq;
      IF v_seq % ${TRIM_EVERY} = 0 THEN
        WITH gone AS (
          DELETE FROM arbor_changes WHERE seq <= v_seq - ${CHANGE_LOG_RETENTION}
          RETURNING seq, xid)
        SELECT MAX(seq), MAX(xid) INTO v_trimmed_seq, v_trimmed_xid FROM gone;
        IF v_trimmed_seq IS NOT NULL THEN
          INSERT INTO arbor_meta (key, value)
            VALUES ('${TRIMMED_SEQ_KEY}', v_trimmed_seq::text), ('${TRIMMED_XID_KEY}', v_trimmed_xid::text)
            ON CONFLICT (key) DO UPDATE
              SET value = GREATEST(arbor_meta.value::bigint, excluded.value::bigint)::text;
        END IF;
      END IF;
      RETURN v_seq;
    END $$`,
  ];
}

// --- Internal helpers ---

/** First key of the change-log lock ("ARBC"), beside the session locks' "ARBR". */
const CHANGE_LOCK_NAMESPACE = ADVISORY_LOCK_NAMESPACE + 1;
const TRIM_EVERY = 1000;
