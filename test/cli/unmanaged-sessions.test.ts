// The README's quick start writes a session without the manager:
// `Session.create(openSqlite(file)).forSession("chat-1")`. Its first message registers it
// (docs/behavior/manager.md#sessions-written-without-the-manager), so the CLI lists and draws it.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { runCli, temporaryFolder } from "./support/cli.js";

describe("arbor on a session written without the manager (the quick start's way)", () => {
  const folder = temporaryFolder();
  const db = join(folder.path, "memory.db");
  const arbor = (...args: string[]) => runCli([...args, "--db", db]);

  beforeAll(async () => {
    const store = openSqlite(db);
    try {
      const session = Session.create(store).forSession("chat-1");
      await session.appendMessage({
        id: "u1",
        role: "user",
        parts: [{ type: "text", text: "Plan a trip to Lisbon" }],
      });
      await session.appendMessage({
        id: "a1",
        role: "assistant",
        parts: [{ type: "text", text: "Three days: Alfama, Belém, Sintra." }],
      });
    } finally {
      store.close();
    }
  });
  afterAll(() => folder.remove());

  it("sessions list shows it, named by its id, with its message count", async () => {
    const run = await arbor("sessions", "list", "--json");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const { sessions } = JSON.parse(run.stdout) as {
      sessions: Array<{ id: string; name: string; messageCount: number }>;
    };
    expect(sessions.map((row) => [row.id, row.name, row.messageCount])).toEqual(
      [["chat-1", "chat-1", 2]],
    );
  });

  it("tree draws it", async () => {
    const run = await arbor("tree", "chat-1");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        "● u1 user: Plan a trip to Lisbon",
        "● a1 assistant: Three days: Alfama, Belém, Sintra.  ◀ active",
        "",
      ].join("\n"),
    );
  });
});
