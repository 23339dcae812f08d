import { ArborError } from "../../session/errors/index.js";

/**
 * How long a postgres.js statement may stay unsettled once its client has lost a connection
 * around it, before Arbor gives up on it. Arbor's statements take milliseconds; one still pending
 * this long after a connection of its pool failed was almost surely lost with it.
 */
export const LOST_STATEMENT_GRACE_MS = 5_000;

/**
 * A statement that starts this soon after a connection fault may have been handed to the failed
 * connection: postgres.js moves a connection out of its pool on the socket's `close`, which
 * follows the `error` by a few ticks.
 */
const FAULT_WINDOW_MS = 1_000;

/** The driver codes of a connection that failed under a statement (postgres.js and Node). */
const CONNECTION_FAULTS = new Set([
  "ECONNRESET",
  "EPIPE",
  "ECONNABORTED",
  "ETIMEDOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
]);

/**
 * Settles the statements postgres.js loses when a connection fails.
 *
 * postgres.js 3.4 hands a statement to a connection whose socket has errored but not yet closed
 * (the connection leaves the pool only on `close`). The statement is written to the dead socket,
 * and the `close` that follows an error rejects nothing, so the statement's promise never
 * settles: a request waiting on it hangs, and every write queued behind its session's append
 * lock hangs with it. Seen under a cut in the middle of concurrent writes, about once in twenty
 * cuts.
 *
 * The guard watches the statements of one client. When one of them fails with a connection
 * fault, every statement pending then, or starting within `FAULT_WINDOW_MS` after, must settle
 * within `graceMs`; one that does not is rejected with `STORAGE_UNAVAILABLE` (its outcome is
 * unknown, as after any cut: a write is retried the idempotent way). Statements that start
 * while the client is healthy get no deadline, so a long query is never cut in normal running.
 */
export class LostStatementGuard {
  readonly #pending = new Set<PendingStatement>();
  #lastFaultAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly graceMs = LOST_STATEMENT_GRACE_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Statements in flight: started through `run` and not settled yet. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Runs `statement`, rejecting it if it is lost with a failed connection. */
  run<T>(statement: () => PromiseLike<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: PendingStatement = {
        timer: undefined,
        reject,
      };
      this.#pending.add(entry);
      if (this.now() - this.#lastFaultAt < FAULT_WINDOW_MS) this.#arm(entry);
      const settle = () => {
        this.#pending.delete(entry);
        if (entry.timer !== undefined) clearTimeout(entry.timer);
      };
      let running: PromiseLike<T>;
      try {
        running = statement();
      } catch (error) {
        settle();
        reject(error);
        return;
      }
      running.then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          if (isConnectionFault(error)) this.#fault();
          reject(error);
        },
      );
    });
  }

  #fault(): void {
    this.#lastFaultAt = this.now();
    for (const entry of this.#pending) this.#arm(entry);
  }

  #arm(entry: PendingStatement): void {
    if (entry.timer !== undefined) return;
    entry.timer = setTimeout(() => {
      this.#pending.delete(entry);
      entry.reject(
        new ArborError(
          "STORAGE_UNAVAILABLE",
          `[arbor] [postgres] A statement did not settle within ${this.graceMs} ms after its connection pool lost a connection; the driver lost it. Its outcome is unknown: retry a write the idempotent way`,
        ),
      );
    }, this.graceMs);
    // A pending deadline never keeps a process alive on its own.
    (entry.timer as { unref?: () => void }).unref?.();
  }
}

interface PendingStatement {
  timer: ReturnType<typeof setTimeout> | undefined;
  reject: (error: unknown) => void;
}

function isConnectionFault(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && CONNECTION_FAULTS.has(code);
}
