import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentSessionProvider } from "../../src/backends/sql/index.js";
import { openSqlite } from "../../src/sqlite/open-sqlite.js";
import { runProviderConformance } from "../../src/testing/index.js";

runProviderConformance(
  {
    name: "AgentSessionProvider on SQLite :memory:",
    create: () => {
      const database = openSqlite(":memory:");
      return {
        session: (sessionId) => new AgentSessionProvider(database, sessionId),
        destroy: () => database.close(),
      };
    },
  },
  { describe, it, expect, beforeAll, afterAll },
);
