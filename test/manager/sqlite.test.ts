import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session, SessionManager } from "../../src/session/index.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";
import { runManagerConformance } from "../../src/testing/index.js";

/** Every row of every table, FTS tables included. */
function dumpAllTables(db: SqliteHandle): unknown[] {
  const tables = db.sql<{
    name: string;
  }>`SELECT name FROM sqlite_master WHERE type = 'table'`;
  return tables.flatMap(({ name }) =>
    db.database
      .prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`)
      .all()
      .map((row) => ({ table: name, row })),
  );
}

runManagerConformance(
  {
    name: "SQLite :memory:",
    create: () => {
      const db = openSqlite(":memory:");
      return {
        manager: (options) => SessionManager.create(db, options),
        dump: () => dumpAllTables(db),
        sessionWithoutManager: (sessionId) =>
          Session.create(db).forSession(sessionId),
        destroy: () => db.close(),
      };
    },
  },
  { describe, it, expect, beforeAll, afterAll },
);
