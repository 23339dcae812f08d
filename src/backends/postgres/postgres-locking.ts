import { ArborError } from "../../session/errors/index.js";
import type { PostgresExecutor, PostgresQueryable } from "./postgres-client.js";
import { ADVISORY_LOCK_NAMESPACE } from "./postgres-ddl.js";

/** SQL that takes the session lock until the end of the transaction; one `?` = the session id. */
export const SESSION_LOCK_SQL = `pg_advisory_xact_lock(${ADVISORY_LOCK_NAMESPACE}, hashtext(?))`;

/**
 * The first CTEs of a locked single-statement write: take the session lock, then check that the
 * session is still in the state the caller planned against (`arbor_session_fingerprint`, read
 * with a fresh snapshot after the lock). `checked.ok` gates every write of the statement.
 * Parameters: session id, fingerprint, session id, fingerprint (a `null` fingerprint means
 * "inside a locked transaction: nothing to check").
 */
export const LOCKED_WRITE_PREFIX = `locked AS MATERIALIZED (SELECT ${SESSION_LOCK_SQL} AS locked),
checked AS MATERIALIZED (
  SELECT (?::text IS NULL OR arbor_session_fingerprint(?) = ?::text) AS ok FROM locked
)`;

/** Parameters of `LOCKED_WRITE_PREFIX`. */
export function lockedWriteParams(
  sessionId: string,
  fingerprint: string | null,
): unknown[] {
  return [sessionId, fingerprint, sessionId, fingerprint];
}

/** What one attempt of a session write reports: done, or the session changed under it. */
export type WriteAttempt<T> = { done: true; value: T } | { done: false };

/**
 * Runs a read-plan-write operation on one session atomically across processes (docs/behavior/messages-and-tree.md, docs/behavior/storage.md).
 *
 * - `pg` Pool or Client: a transaction that first takes the session's advisory lock; reads after
 *   it see every committed write, so `attempt` runs once with `fingerprint = null`.
 * - `execute`-style connection (no transaction across statements): optimistic. The session's
 *   fingerprint is read first, `attempt` reads and plans, then writes in one statement that takes
 *   the same lock and applies only if the fingerprint is unchanged (`LOCKED_WRITE_PREFIX`);
 *   otherwise it retries with backoff. Writers on every connection kind share the lock.
 */
export async function sessionWrite<T>(
  executor: PostgresExecutor,
  sessionId: string,
  attempt: (
    db: PostgresQueryable,
    fingerprint: string | null,
  ) => Promise<WriteAttempt<T>>,
): Promise<T> {
  if (executor.supportsTransactions) {
    return executor.transaction(async (tx) => {
      await tx.query(`SELECT ${SESSION_LOCK_SQL}`, [sessionId]);
      const result = await attempt(tx, null);
      if (!result.done) {
        throw new ArborError(
          "WRITE_CONFLICT",
          "[arbor] [postgres] internal: a locked write reported a conflict",
        );
      }
      return result.value;
    });
  }
  for (let round = 0; round < MAX_ATTEMPTS; round++) {
    const [row] = await executor.query<{ fingerprint: string }>(
      "SELECT arbor_session_fingerprint(?) AS fingerprint",
      [sessionId],
    );
    const result = await attempt(executor, row?.fingerprint ?? "");
    if (result.done) return result.value;
    await sleep(Math.min(100, 2 ** round) * (0.5 + Math.random()));
  }
  throw new ArborError(
    "WRITE_CONFLICT",
    `[arbor] [postgres] Session "${sessionId}" kept changing during a delete or clear (${MAX_ATTEMPTS} attempts); retry, or use a pg Pool for this write`,
  );
}

// --- Internal helpers ---

const MAX_ATTEMPTS = 50;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
