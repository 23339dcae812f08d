import {
  ArborError,
  ArborTypeError,
  errorReason,
  isArborError,
  type ArborErrorLike,
} from "../../session/errors/index.js";

/**
 * What a statement's failure means to Arbor's callers, decided here once for both drivers (`pg`
 * and postgres.js) and every connection kind, so nothing above the backend reads a driver's codes
 * or words (docs/errors.md, "Where errors are classified"). The executor applies it to every
 * statement, connect, `BEGIN` and `COMMIT` (postgres-executor.ts); the driver's error stays the
 * `cause`.
 *
 * - `STORAGE_UNAVAILABLE`: the database could not be reached or went away, or cannot serve now; the
 *   same call may succeed later.
 * - `WRITE_CONFLICT`: PostgreSQL rolled the transaction back to break a deadlock or a
 *   serialization failure; nothing was written and retrying is safe.
 * - `INVALID_ARGUMENT`: a value PostgreSQL text cannot hold (a NUL, a lone surrogate).
 * - `STORAGE_ERROR`: anything else the database refused.
 *
 * Arbor's own errors pass through unchanged.
 */
export function postgresError(error: unknown): unknown {
  if (isArborError(error)) return error;
  const reason = errorReason(error);
  if (isUnavailable(error)) {
    return new ArborError(
      "STORAGE_UNAVAILABLE",
      `[arbor] [postgres] The database is unavailable (${reason}); retry later`,
      { cause: error },
    );
  }
  const state = sqlState(error);
  if (state === "40001" || state === "40P01") {
    return new ArborError(
      "WRITE_CONFLICT",
      `[arbor] [postgres] PostgreSQL rolled the write back to resolve a conflict with a concurrent one (${reason}); nothing was written: retry`,
      { cause: error },
    );
  }
  if (
    state === "22021" ||
    state === "22P05" ||
    (state === "22P02" && /unicode/i.test(detailOf(error)))
  ) {
    // Arbor refuses such ids and names before writing (messages/storable-text.ts); a lookup by one
    // lands here.
    return new ArborTypeError(
      "INVALID_ARGUMENT",
      "[arbor] [postgres] A value contains a NUL character or a lone surrogate, which PostgreSQL text cannot hold",
      { cause: error },
    );
  }
  return new ArborError(
    "STORAGE_ERROR",
    `[arbor] [postgres] The store failed: ${reason}`,
    { cause: error },
  );
}

/**
 * The SQLSTATE of a driver's error, also when the executor has already wrapped it
 * (`postgresError`): for the backend's own retries and fallbacks (a unique violation, a query the
 * text search refuses), which look at what PostgreSQL said.
 */
export function sqlState(error: unknown): string | undefined {
  const driver = isArborError(error) && isWrapped(error) ? error.cause : error;
  const code = (driver as { code?: unknown } | null)?.code;
  return typeof code === "string" && SQLSTATE_SHAPE.test(code)
    ? code
    : undefined;
}

// --- Internal helpers ---

const SQLSTATE_SHAPE = /^[0-9A-Z]{5}$/;

/**
 * Node socket codes: the database could not be reached or went away mid-statement, never a bad
 * request. postgres.js names its lost connections itself.
 */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

/**
 * SQLSTATEs of a server that cannot serve now: the whole connection-exception class (08…),
 * shutdown and recovery (57P01-57P03), too many connections (53300) and a statement cancelled by
 * `statement_timeout` (57014). All pass when the database does.
 */
const UNAVAILABLE_STATE = /^(08[0-9A-Z]{3}|57P0[123]|53300|57014)$/;

/** `pg` says these in words only (no code): a cut connection, the pool's acquire timeout. */
const PG_UNAVAILABLE_WORDS =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|Query read timeout)/;

/** The wrapped codes `postgresError` creates around a driver's error. */
function isWrapped(error: ArborErrorLike): boolean {
  return (
    error.code === "STORAGE_UNAVAILABLE" ||
    error.code === "STORAGE_ERROR" ||
    error.code === "WRITE_CONFLICT" ||
    error.code === "INVALID_ARGUMENT"
  );
}

function isUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== "object" || error === null) return false;
  const { code, message, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (
    typeof code === "string" &&
    (CONNECTION_CODES.has(code) || UNAVAILABLE_STATE.test(code))
  )
    return true;
  if (typeof message === "string" && PG_UNAVAILABLE_WORDS.test(message))
    return true;
  // Node's connect to a name with several addresses fails with an AggregateError of each try.
  if (
    Array.isArray(errors) &&
    errors.some((inner) => isUnavailable(inner, depth + 1))
  )
    return true;
  return isUnavailable(cause, depth + 1);
}

function detailOf(error: unknown): string {
  const detail = (error as { detail?: unknown } | null)?.detail;
  return typeof detail === "string" ? detail : "";
}
