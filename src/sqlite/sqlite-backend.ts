import type { Backend } from "../session/contracts/backend.js";
import { ArborTypeError } from "../session/errors/index.js";
import { sqlBackend } from "../backends/sql/sql-backend.js";
import { StoreSlot, storeRuntime } from "../session/state/store-runtime.js";
import type { SqliteDatabase } from "./_better-sqlite3.js";
import { loadSqliteVec } from "./_sqlite-vec.js";
import {
  openSqlite,
  sqliteHandle,
  type OpenSqliteOptions,
  type SqliteHandle,
} from "./open-sqlite.js";

/** A SQLite database as a `Backend`, with the handle it runs on. */
export interface SqliteBackend extends Backend {
  /** The database as a `sql` store (what `openSqlite()` returns): `close()` it when done. */
  readonly sqlite: SqliteHandle;
}

/**
 * A SQLite database as a whole store (the `Backend` contract) for `SessionManager.create()`,
 * `new Sessions()` and `Session.create(backend.session(id))`: the sql backend over
 * `openSqlite()`. Takes
 *
 * - a file path (or `":memory:"`), opened with `openSqlite(file, options)`;
 * - an opened better-sqlite3 `Database`, used with its own settings (`options.sqliteVec` loads
 *   the extension into it when installed, as `openSqlite()` does);
 * - an `openSqlite()` handle, as it is.
 *
 * The same database object (or handle) gives the same backend. `backend.sqlite.close()` closes
 * the database.
 *
 * @throws ArborTypeError `INVALID_TARGET` for anything else; `openSqlite()`'s errors for a path.
 *
 * @example
 * ```ts
 * import { SessionManager } from "arbor-memory/session";
 * import { sqliteBackend } from "arbor-memory/sqlite";
 *
 * const backend = sqliteBackend("memory.db");
 * const manager = SessionManager.create(backend);
 * ```
 */
export function sqliteBackend(
  fileOrDatabase: string | SqliteDatabase | SqliteHandle,
  options: OpenSqliteOptions = {},
): SqliteBackend {
  const handle = handleOf(fileOrDatabase, options);
  // The sql backend itself, seen through an object that adds the handle: its members, its
  // identity (the handle) and everything keyed on it stay the sql backend's own. One per store,
  // a slot of the store's runtime like the sql backend it wraps.
  return storeRuntime(handle).own(
    SQLITE_BACKEND,
    () =>
      Object.create(sqlBackend(handle), {
        sqlite: { value: handle, enumerable: true },
      }) as SqliteBackend,
  );
}

// --- Internal helpers ---

const SQLITE_BACKEND = new StoreSlot<SqliteBackend>("sqlite backend");
const handles = new WeakMap<SqliteDatabase, SqliteHandle>();

function handleOf(
  target: string | SqliteDatabase | SqliteHandle,
  options: OpenSqliteOptions,
): SqliteHandle {
  if (typeof target === "string") return openSqlite(target, options);
  if (isHandle(target)) return target;
  if (isDatabase(target)) {
    let handle = handles.get(target);
    if (!handle) {
      if (options.sqliteVec !== false) loadSqliteVec(target);
      handle = sqliteHandle(target);
      handles.set(target, handle);
    }
    return handle;
  }
  throw new ArborTypeError(
    "INVALID_TARGET",
    `[arbor] [sqlite] sqliteBackend() takes a file path (or ":memory:"), an opened better-sqlite3 Database or an openSqlite() handle; got ${target === null ? "null" : typeof target}`,
  );
}

function isHandle(value: unknown): value is SqliteHandle {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Partial<SqliteHandle>).sql === "function" &&
    typeof (value as Partial<SqliteHandle>).transaction === "function"
  );
}

function isDatabase(value: unknown): value is SqliteDatabase {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Partial<SqliteDatabase>).prepare === "function" &&
    typeof (value as Partial<SqliteDatabase>).transaction === "function"
  );
}
