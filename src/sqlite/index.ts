/**
 * Node-only SQLite support: `sqliteBackend()` makes a file (or an opened better-sqlite3 database)
 * the `Backend` that `SessionManager.create()` takes, and `openSqlite()` turns a file into the
 * `sql` store shape that `Session.create()` takes. The only module of Arbor that loads
 * better-sqlite3 (an optional peer dependency, loaded on the first `openSqlite()` call).
 *
 * @module arbor-memory/sqlite
 */
export { sqliteBackend, type SqliteBackend } from "./sqlite-backend.js";
export {
  openSqlite,
  type OpenSqliteOptions,
  type SqliteHandle,
} from "./open-sqlite.js";
export type {
  SqliteDatabase,
  SqliteStatement,
  SqliteTransaction,
} from "./_better-sqlite3.js";
export {
  applySqlSchema as applySqliteSchema,
  inspectSqlSchema as inspectSqliteSchema,
  type SqlSchemaState as SqliteSchemaState,
} from "../backends/sql/index.js";
