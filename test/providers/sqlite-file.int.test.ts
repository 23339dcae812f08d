import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentSessionProvider } from "../../src/backends/sql/index.js";
import { openSqlite } from "../../src/sqlite/open-sqlite.js";
import { runProviderConformance } from "../../src/testing/index.js";

let folder = "";
let files = 0;

runProviderConformance(
  {
    name: "AgentSessionProvider on a SQLite file",
    beforeAll: () => {
      folder = mkdtempSync(join(tmpdir(), "arbor-conformance-"));
    },
    afterAll: () => rmSync(folder, { recursive: true, force: true }),
    // A new database file per case: fresh storage, WAL and all.
    create: () => {
      const database = openSqlite(join(folder, `case-${++files}.db`));
      return {
        session: (sessionId) => new AgentSessionProvider(database, sessionId),
        destroy: () => database.close(),
      };
    },
  },
  { describe, it, expect, beforeAll, afterAll },
);
