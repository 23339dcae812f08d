// The route helper's cases on SQLite (openSqlite, one file shared by two managers).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { runChatHandlerCases } from "./chat-handler.cases.js";

runChatHandlerCases({
  name: "SQLite",
  async create() {
    const dir = mkdtempSync(join(tmpdir(), "arbor-chat-"));
    const handles: Array<ReturnType<typeof openSqlite>> = [];
    return {
      // A second openSqlite() of the same file stands for a second server process.
      manager() {
        const handle = openSqlite(join(dir, "chat.db"));
        handles.push(handle);
        return SessionManager.create(handle);
      },
      async close() {
        for (const handle of handles) handle.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});

runChatHandlerCases({
  name: "memory",
  async create() {
    const manager = SessionManager.inMemory();
    return { manager: () => manager, close: async () => undefined };
  },
});
