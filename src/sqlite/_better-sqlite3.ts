import { createRequire } from "node:module";
import { ArborError } from "../session/errors/index.js";

/**
 * The part of a better-sqlite3 `Database` Arbor uses and exposes. Declared here, not imported,
 * so the published types compile without `@types/better-sqlite3` (a better-sqlite3 database
 * satisfies it; cast `handle.database` to `Database.Database` for the rest of its API).
 */
export interface SqliteDatabase {
  readonly name: string;
  readonly open: boolean;
  readonly inTransaction: boolean;
  readonly memory: boolean;
  prepare(source: string): SqliteStatement;
  exec(source: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<Result>(fn: () => Result): SqliteTransaction<Result>;
  close(): unknown;
}

/** A prepared statement of a `SqliteDatabase`. */
export interface SqliteStatement {
  /** True when the statement returns rows (`SELECT`, `… RETURNING`). */
  readonly reader: boolean;
  run(...values: unknown[]): {
    changes: number;
    lastInsertRowid: number | bigint;
  };
  get(...values: unknown[]): unknown;
  all(...values: unknown[]): unknown[];
}

/** A function wrapped by `SqliteDatabase.transaction()`; each variant picks the BEGIN mode. */
export interface SqliteTransaction<Result> {
  (): Result;
  deferred(): Result;
  immediate(): Result;
  exclusive(): Result;
}

type SqliteConstructor = new (
  filename: string,
  options?: { readonly?: boolean; fileMustExist?: boolean },
) => SqliteDatabase;

/** The install command every "better-sqlite3 is missing" message names. */
export const BETTER_SQLITE3_INSTALL = "npm install better-sqlite3@12";

let loaded: SqliteConstructor | undefined;

/**
 * better-sqlite3's `Database` class, loaded on first use: it is an optional peer (a native
 * module), so importing `arbor-memory/sqlite` must work without it and fail only here.
 *
 * @throws ArborError `MISSING_DEPENDENCY` with the install command when it cannot be loaded.
 */
export function loadBetterSqlite3(): SqliteConstructor {
  if (loaded) return loaded;
  try {
    loaded = createRequire(import.meta.url)(
      "better-sqlite3",
    ) as SqliteConstructor;
  } catch (error) {
    throw new ArborError(
      "MISSING_DEPENDENCY",
      `[arbor] [sqlite] openSqlite() needs the optional peer dependency better-sqlite3: ${BETTER_SQLITE3_INSTALL}`,
      { cause: error },
    );
  }
  return loaded;
}
