import { errorReason, isArborError } from "../../session/errors/index.js";

/**
 * True when `error` is the storage's outage: `STORAGE_UNAVAILABLE`, which each backend gives its
 * driver's words for it (a refused or cut connection, a pool's wait running out, PostgreSQL
 * shutting down, SQLite busy), so the request may succeed when retried later. The code is the
 * whole test: an error without it (a custom provider's own, a bug) is not an outage, whatever
 * its message says (docs/errors.md).
 */
export function isStorageFault(error: unknown): boolean {
  return isArborError(error) && error.code === "STORAGE_UNAVAILABLE";
}

/**
 * A short reason for the log: the code and first line of the message, never a stack. Of the
 * driver's error when the backend wrapped one (its `cause`): that is what an operator looks up.
 */
export function faultReason(error: unknown): string {
  const source =
    isArborError(error) && error.cause !== undefined ? error.cause : error;
  return source === undefined || source === null
    ? "unknown error"
    : errorReason(source);
}

/**
 * Remembers whether the storage is in an outage, so an outage logs one line when it starts and
 * one when it ends (with the number of requests it failed), not a stack trace per request.
 *
 * A request's outcome speaks only for the time after it started. A request that began before
 * the outage and succeeds during it (its query got through just before the cut) does not end
 * it; and a request that began before the recovery and fails after it (it waited for a
 * connection through the outage, then timed out) belongs to the outage just logged as over and
 * does not start another. Without this rule one outage under load logged its recovery three
 * times, each followed by a new "unavailable".
 */
export class OutageLog {
  #failed = 0;
  #since = 0;
  #recoveredAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly log: (message: string) => void) {}

  /** True while the last storage call failed and no request has succeeded since. */
  get inOutage(): boolean {
    return this.#failed > 0;
  }

  /** A request that started at `startedAt` (`Date.now()` then) failed on the storage. */
  failed(error: unknown, startedAt: number = Date.now()): void {
    if (this.#failed > 0) {
      this.#failed++;
      return;
    }
    if (startedAt < this.#recoveredAt) return;
    this.#failed = 1;
    this.#since = Date.now();
    this.log(
      `[arbor] [server] storage unavailable (${faultReason(error)}): answering 503 STORAGE_UNAVAILABLE until it is back`,
    );
  }

  /** A request that started at `startedAt` reached the storage and succeeded. */
  succeeded(startedAt: number = Date.now()): void {
    if (this.#failed === 0 || startedAt < this.#since) return;
    const now = Date.now();
    this.log(
      `[arbor] [server] storage available again after ${((now - this.#since) / 1000).toFixed(1)} s; ${this.#failed} request(s) answered 503`,
    );
    this.#failed = 0;
    this.#recoveredAt = now;
  }
}
