/**
 * The change log's names and timings, what the writers (postgres-executor.ts) and the reader
 * (postgres-change-reader.ts) share. Its DDL, `arbor_changes` and `arbor_record_change()`, is in
 * postgres-change-log-ddl.ts, loaded with the schema code only.
 */

/** The channel writers announce committed changes on; the payload is empty. */
export const CHANGE_CHANNEL = "arbor_changes";

/** Change-log rows kept: older ones are trimmed (docs/behavior/events-and-audit.md, "Change feed"). */
export const CHANGE_LOG_RETENTION = 10_000;

/** `arbor_meta` keys of the highest `seq` and `xid` trimmed from the change log. */
export const TRIMMED_SEQ_KEY = "change_log_trimmed_seq";
export const TRIMMED_XID_KEY = "change_log_trimmed_xid";

/** How often an `execute`-style connection, which cannot LISTEN, polls the change log. */
export const CHANGE_POLL_INTERVAL_MS = 250;

/** How often a listening reader also polls, for announcements lost with a writer that died. */
export const CHANGE_SAFETY_POLL_MS = 750;

/** How long a writer gathers commits before one announcement. */
export const ANNOUNCE_DELAY_MS = 10;

/**
 * The statement a writer sends after a commit that recorded changes (`announceChanges`): one
 * notification wakes every listening reader, which then reads the log from its cursor.
 */
export const ANNOUNCE_SQL = `SELECT pg_notify('${CHANGE_CHANNEL}', '')`;

/** The call every change-recording statement contains (`RECORD_CHANGE_SQL`). */
export const RECORD_CHANGE_CALL = "arbor_record_change(";
