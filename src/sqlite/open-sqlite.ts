import type { SqlProvider } from "../session/contracts/sql-provider.js";
import {
  ArborError,
  ArborTypeError,
  errorReason,
} from "../session/errors/index.js";
import { loadSqliteVec } from "./_sqlite-vec.js";
import {
  loadBetterSqlite3,
  type SqliteDatabase,
  type SqliteStatement,
} from "./_better-sqlite3.js";

/** How long a writer waits for another process's lock before failing. */
const BUSY_TIMEOUT_MS = 5_000;

/** A SQLite database as a `sql` tagged template, with an atomic `transaction` (docs/behavior/runtime.md). */
export interface SqliteHandle extends SqlProvider {
  sql<Row = Record<string, unknown>>(
    strings: TemplateStringsArray,
    ...values: unknown[]
  ): Row[];
  transaction<T>(fn: () => T): T;
  close(): void;
  /** The underlying better-sqlite3 database, for tools that need more. */
  readonly database: SqliteDatabase;
}

/** Options of `openSqlite()`. */
export interface OpenSqliteOptions {
  /** Load the optional peer `sqlite-vec` when it is installed (default `true`). */
  sqliteVec?: boolean;
  /**
   * Open an existing file for reading only (default `false`): nothing is created, the journal
   * mode is left as it is, and any write fails with SQLite's `SQLITE_READONLY`. For tools that
   * must not change a file they were only asked to read (another application's database, say).
   * A file that does not exist is `STORAGE_UNAVAILABLE`.
   */
  readonly?: boolean;
}

/**
 * Opens (or creates) a SQLite database file, or `":memory:"`, in WAL mode with
 * `synchronous=NORMAL` and a 5 s busy timeout. Needs the optional peer dependency
 * `better-sqlite3` (`npm install better-sqlite3@12`), loaded on the first call.
 *
 * @throws ArborTypeError `INVALID_ARGUMENT` without a file name: pass a path, or `":memory:"`
 * for a database that is lost when the process exits.
 * @throws ArborError `STORAGE_UNAVAILABLE` when the file cannot be opened (a directory, a
 * missing parent directory, no permission).
 * @throws ArborError `MISSING_DEPENDENCY` when better-sqlite3 is not installed.
 *
 * When the optional peer `sqlite-vec` is installed it is loaded into the connection, so
 * semantic search ranks vectors inside SQLite (docs/search.md); `{ sqliteVec: false }` skips it.
 *
 * @example
 * ```ts
 * import { openSqlite } from "arbor-memory/sqlite";
 * import { Session } from "arbor-memory/session";
 *
 * const session = Session.create(openSqlite("memory.db"));
 * ```
 */
export function openSqlite(
  filename: string,
  options: OpenSqliteOptions = {},
): SqliteHandle {
  assertFilename(filename);
  const Database = loadBetterSqlite3();
  const database = openDatabase(Database, filename, options.readonly === true);
  if (options.sqliteVec !== false) loadSqliteVec(database);
  return sqliteHandle(database);
}

/**
 * An opened better-sqlite3 database as a `sql` store with an atomic `transaction`, as
 * `openSqlite()` returns it; the database's settings (journal mode, timeouts) are left as they
 * are. `close()` closes the database.
 */
export function sqliteHandle(database: SqliteDatabase): SqliteHandle {
  // A call site passes the same strings array every time, so it keys the fast path.
  let bySite = new WeakMap<TemplateStringsArray, SqliteStatement>();
  const byText = new Map<string, SqliteStatement>();

  function prepare(strings: TemplateStringsArray): SqliteStatement {
    let statement = bySite.get(strings);
    if (statement) return statement;
    const text = strings.join("?");
    statement = byText.get(text);
    if (!statement) {
      statement = database.prepare(text);
      byText.set(text, statement);
    }
    bySite.set(strings, statement);
    return statement;
  }

  return {
    database,
    sql<Row>(strings: TemplateStringsArray, ...values: unknown[]): Row[] {
      const statement = prepare(strings);
      const bound = values.map(toSqliteValue);
      if (statement.reader) return statement.all(...bound) as Row[];
      statement.run(...bound);
      return [];
    },
    transaction<T>(fn: () => T): T {
      // Nested calls join the outer transaction instead of failing on a second BEGIN.
      if (database.inTransaction) return fn();
      return database.transaction(fn).immediate();
    },
    close() {
      bySite = new WeakMap();
      byText.clear();
      database.close();
    },
  };
}

// --- Internal helpers ---

function assertFilename(filename: unknown): asserts filename is string {
  // better-sqlite3 opens a temporary in-memory database for "" and undefined; data written
  // there is silently lost, so an in-memory database has to be asked for by name.
  if (typeof filename !== "string" || filename.trim() === "") {
    throw new ArborTypeError(
      "INVALID_ARGUMENT",
      `[arbor] [sqlite] openSqlite() needs a file path, or ":memory:" for a database that is lost on exit; got ${describe(filename)}`,
    );
  }
}

function openDatabase(
  Database: ReturnType<typeof loadBetterSqlite3>,
  filename: string,
  readonly: boolean,
): SqliteDatabase {
  let database: SqliteDatabase | undefined;
  try {
    if (readonly) {
      database = new Database(filename, {
        readonly: true,
        fileMustExist: true,
      });
      // Switching to WAL writes the file's header: a read-only handle keeps the file's mode.
      // busy_timeout is the connection's own setting and writes nothing.
      database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      // The first read, so a file that is not a database fails here rather than mid-command.
      database.prepare("SELECT COUNT(*) FROM sqlite_master").get();
      return database;
    }
    database = new Database(filename);
    // The first pragma writes (WAL), so an unwritable file fails here rather than on a later write.
    database.pragma("journal_mode = WAL");
    database.pragma("synchronous = NORMAL");
    database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    return database;
  } catch (error) {
    database?.close();
    throw new ArborError(
      "STORAGE_UNAVAILABLE",
      readonly
        ? `[arbor] [sqlite] openSqlite() cannot read "${filename}" (${errorReason(error)}): pass an existing SQLite database file`
        : `[arbor] [sqlite] openSqlite() cannot open "${filename}" (${errorReason(error)}): pass a writable file path in an existing directory`,
      { cause: error },
    );
  }
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "string") return JSON.stringify(value);
  return value === null ? "null" : typeof value;
}

function toSqliteValue(value: unknown): unknown {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value === undefined) return null;
  return value;
}
