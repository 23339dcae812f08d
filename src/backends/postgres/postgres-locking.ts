import { ArborError } from "../../session/errors/index.js";
import type { PostgresExecutor, PostgresQueryable } from "./postgres-client.js";

/**
 * First key of Arbor's two-key advisory locks ("ARBR"), so they never collide with an
 * application's own one-key locks. The second key is `hashtext(<session id>)`.
 */
export const ADVISORY_LOCK_NAMESPACE = 0x41524252;

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
 *   otherwise it retries after `writeRetryDelay`, at most `WRITE_RETRY.attempts` rounds, then
 *   fails with `WRITE_CONFLICT` having written nothing. Writers on every connection kind share
 *   the lock.
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
  for (let round = 0; round < WRITE_RETRY.attempts; round++) {
    const [row] = await executor.query<{ fingerprint: string }>(
      "SELECT arbor_session_fingerprint(?) AS fingerprint",
      [sessionId],
    );
    const result = await attempt(executor, row?.fingerprint ?? "");
    if (result.done) return result.value;
    if (round + 1 < WRITE_RETRY.attempts)
      await sleep(writeRetryDelay(round, Math.random()));
  }
  throw new ArborError(
    "WRITE_CONFLICT",
    `[arbor] [postgres] Session "${sessionId}" kept changing while a delete, clear or import was planned (${WRITE_RETRY.attempts} attempts); nothing was written: retry, or use a pg Pool for this write`,
  );
}

/**
 * The retry policy of an optimistic write (docs/postgres.md, "Concurrency"). Bounded twice: by
 * attempts, and by delays that grow so a loaded machine (where every round is slow and a few
 * immediate retries all lose) still spreads them over seconds, not milliseconds. The waits add
 * up to about 5 s, under 7 s in the worst case, before `WRITE_CONFLICT`.
 */
export const WRITE_RETRY = {
  attempts: 40,
  baseDelayMs: 4,
  maxDelayMs: 200,
} as const;

/**
 * The wait after the failed round `round` (0-based): exponential from `baseDelayMs`, capped at
 * `maxDelayMs`, with "equal jitter" (half fixed, half random). The fixed half keeps the wait
 * growing whatever the random draw; the random half keeps writers that lost together from
 * retrying together. `random` is a draw in [0, 1), a parameter so the policy can be tested.
 */
export function writeRetryDelay(round: number, random: number): number {
  const ceiling = Math.min(
    WRITE_RETRY.maxDelayMs,
    WRITE_RETRY.baseDelayMs * 2 ** Math.min(round, 30),
  );
  return ceiling / 2 + (ceiling / 2) * random;
}

// --- Internal helpers ---

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
