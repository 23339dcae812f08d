import {
  ArborError,
  errorReason,
  isArborError,
} from "../../session/errors/index.js";

/**
 * What a failure of a `sql` store means to Arbor's callers, decided here once for every store
 * (`openSqlite()`'s better-sqlite3, a Durable Object, any `sql` tag), so nothing above the backend
 * reads a driver's codes or words (docs/errors.md, "Where errors are classified"). The driver's
 * error stays the `cause`.
 *
 * - `STORAGE_UNAVAILABLE`: another connection held the database past the busy timeout
 *   (`SQLITE_BUSY`, `SQLITE_LOCKED`), the file cannot be opened (`SQLITE_CANTOPEN`), or a Durable
 *   Object's storage says to retry (`retryable`, `overloaded`); the same call may succeed later.
 * - `STORAGE_ERROR`: anything else the store failed with (a closed handle, a full disk, a
 *   statement it refused).
 *
 * Arbor's own errors pass through unchanged.
 */
export function sqlError(error: unknown): unknown {
  if (isArborError(error)) return error;
  const code = sqliteCode(error);
  const reason = errorReason(error, code);
  if (
    (code !== undefined && UNAVAILABLE.test(code)) ||
    isRetryableDurableObjectError(error)
  ) {
    return new ArborError(
      "STORAGE_UNAVAILABLE",
      `[arbor] [sqlite] The database is unavailable (${reason}); retry later`,
      { cause: error },
    );
  }
  return new ArborError(
    "STORAGE_ERROR",
    `[arbor] [sqlite] The store failed: ${reason}`,
    { cause: error },
  );
}

/**
 * Makes every method of `target` (a class's prototype, or an object of functions) throw or reject
 * with `sqlError(error)` instead of the store's own error, and returns `target`. The contract's
 * methods are the boundary: the backend's own statements keep reading the driver's errors inside
 * it (a query FTS5 refuses, a pragma a Durable Object forbids, a string over SQLite's limit), and
 * only what leaves a method is mapped. Applied once to each class's prototype, it also covers
 * methods added later.
 */
export function mapSqlErrors<T extends object>(target: T): T {
  for (const name of Object.getOwnPropertyNames(target)) {
    if (name === "constructor") continue;
    const descriptor = Object.getOwnPropertyDescriptor(target, name);
    const method: unknown = descriptor?.value;
    if (typeof method !== "function") continue;
    const mapped = function (this: unknown, ...args: unknown[]): unknown {
      let result: unknown;
      try {
        result = Reflect.apply(method, this, args);
      } catch (error) {
        throw sqlError(error);
      }
      return result instanceof Promise
        ? result.catch((error: unknown) => {
            throw sqlError(error);
          })
        : result;
    };
    Object.defineProperty(mapped, "name", { value: name });
    Object.defineProperty(target, name, { ...descriptor, value: mapped });
  }
  return target;
}

// --- Internal helpers ---

/** Busy and locked in every extended form (`SQLITE_BUSY_SNAPSHOT`, …), and a file that cannot open. */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|CANTOPEN)(_[A-Z]+)?$/;

/**
 * The SQLite result code: better-sqlite3 sets `code`; a Durable Object's store only names it in the
 * message ("database is locked: SQLITE_BUSY"), so there it is read from the words.
 */
function sqliteCode(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as {
    code?: unknown;
    message?: unknown;
  };
  if (typeof code === "string" && code.startsWith("SQLITE_")) return code;
  if (typeof message !== "string") return undefined;
  return /\bSQLITE_[A-Z_]+\b/.exec(message)?.[0];
}

/** workerd marks storage errors worth retrying (Cloudflare's Durable Objects error handling). */
function isRetryableDurableObjectError(error: unknown): boolean {
  const { retryable, overloaded } = (error ?? {}) as {
    retryable?: unknown;
    overloaded?: unknown;
  };
  return retryable === true || overloaded === true;
}
