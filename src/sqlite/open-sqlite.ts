import Database from "better-sqlite3";
import type { SqlProvider } from "../session/contracts/sql-provider.js";

/** How long a writer waits for another process's lock before failing. */
const BUSY_TIMEOUT_MS = 5_000;

/** A SQLite database as a `sql` tagged template, with an atomic `transaction` (SPEC §1.2). */
export interface SqliteHandle extends SqlProvider {
  sql<Row = Record<string, unknown>>(
    strings: TemplateStringsArray,
    ...values: unknown[]
  ): Row[];
  transaction<T>(fn: () => T): T;
  close(): void;
  /** The underlying better-sqlite3 database, for tools that need more. */
  readonly database: Database.Database;
}

/**
 * Opens (or creates) a SQLite database file, or `":memory:"`, in WAL mode with
 * `synchronous=NORMAL` and a 5 s busy timeout.
 *
 * @example
 * ```ts
 * import { openSqlite } from "arbor-memory/sqlite";
 * import { Session } from "arbor-memory/session";
 *
 * const session = Session.create(openSqlite("memory.db"));
 * ```
 */
export function openSqlite(filename: string): SqliteHandle {
  const database = new Database(filename);
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = NORMAL");
  database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // A call site passes the same strings array every time, so it keys the fast path.
  let bySite = new WeakMap<TemplateStringsArray, Database.Statement>();
  const byText = new Map<string, Database.Statement>();

  function prepare(strings: TemplateStringsArray): Database.Statement {
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

function toSqliteValue(value: unknown): unknown {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value === undefined) return null;
  return value;
}
