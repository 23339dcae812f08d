import { isArborError } from "../../session/errors/index.js";

/**
 * Node socket codes that mean the database could not be reached or went away mid-query. They
 * are the driver's transport failing, never a bad request.
 */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * Driver codes of the same kind: postgres.js names its lost connections; SQLite's busy timeout
 * ran out while another process held the write lock.
 */
const DRIVER_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "SQLITE_BUSY",
]);

/**
 * PostgreSQL SQLSTATEs of a server that cannot serve now: the whole connection-exception class
 * (08…), shutdown and recovery (57P01-57P03), too many connections (53300) and a statement
 * cancelled by `statement_timeout` (57014): all pass when the database does.
 */
const SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300|57014)$/;

/** `pg` says these in words only (no code): a cut connection, the pool's acquire timeout. */
const DRIVER_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|Query read timeout)/;

/**
 * True when `error` (or an error in its `cause` chain, or one of an AggregateError's) says the
 * storage is unreachable or overloaded, so the request may succeed when retried later.
 */
export function isStorageFault(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== "object" || error === null) return false;
  // Arbor's own codes are kept (a bad request stays a bad request), except the storage one.
  if (isArborError(error) && error.code === "STORAGE_UNAVAILABLE") return true;
  const { code, message, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === "string") {
    if (SOCKET_CODES.has(code) || DRIVER_CODES.has(code) || SQLSTATE.test(code))
      return true;
  }
  if (typeof message === "string" && DRIVER_MESSAGES.test(message)) return true;
  if (Array.isArray(errors) && errors.some((e) => isStorageFault(e, depth + 1)))
    return true;
  return isStorageFault(cause, depth + 1);
}

/** A short reason for the log: the code and first line of the message, never a stack. */
export function faultReason(error: unknown): string {
  const { code, message } = (error ?? {}) as {
    code?: unknown;
    message?: unknown;
  };
  const text =
    typeof message === "string" && message
      ? message.split("\n")[0]!.slice(0, 200)
      : "";
  const codeText = typeof code === "string" ? code : "";
  if (codeText && text && !text.includes(codeText))
    return `${codeText}: ${text}`;
  return text || codeText || "unknown error";
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
