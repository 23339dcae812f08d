// arbor-memory/openai-agents on the in-memory and SQLite backends (the PostgreSQL run is
// arbor-session-postgres.int.test.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryBackend, SessionManager } from "../../src/session/index.js";
import { sqliteBackend, type SqliteBackend } from "../../src/sqlite/index.js";
import { runArborSessionCases } from "./arbor-session.cases.js";

runArborSessionCases({
  name: "the in-memory backend",
  async create() {
    const backend = memoryBackend();
    return {
      manager: () => SessionManager.create(backend),
      close: async () => undefined,
    };
  },
});

runArborSessionCases({
  name: "SQLite (one file, two managers)",
  async create() {
    const folder = mkdtempSync(join(tmpdir(), "arbor-openai-agents-"));
    const file = join(folder, "agent.db");
    const opened: SqliteBackend[] = [];
    return {
      // Each call opens the file again: a second manager is a second connection, as in a restart.
      manager: () => {
        const backend = sqliteBackend(file);
        opened.push(backend);
        return SessionManager.create(backend);
      },
      close: async () => {
        for (const backend of opened) backend.sqlite.close();
        rmSync(folder, { recursive: true, force: true });
      },
    };
  },
});
