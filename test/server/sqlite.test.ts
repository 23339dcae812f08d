// The HTTP API suite on SQLite through openSqlite(): in memory, and in a file on disk (the
// manager and the key store share the database).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqlApiKeyStore } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { runApiSuite } from "./support/api-suite.js";

runApiSuite({
  name: "SQLite :memory:",
  create: () => {
    const db = openSqlite(":memory:");
    return {
      manager: () => SessionManager.create(db),
      keys: () => new SqlApiKeyStore(db),
      destroy: () => db.close(),
    };
  },
});

runApiSuite({
  name: "SQLite file",
  create: () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-server-"));
    const db = openSqlite(join(dir, "arbor.db"));
    return {
      manager: () => SessionManager.create(db),
      keys: () => new SqlApiKeyStore(db),
      destroy: () => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
