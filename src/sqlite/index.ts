/**
 * @module Node-only SQLite support: `openSqlite()` turns a file into the `sql` store shape that
 * `Session.create()` takes. The only module of Arbor that loads better-sqlite3.
 */
export { openSqlite, type SqliteHandle } from "./open-sqlite.js";
