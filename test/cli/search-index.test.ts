// `arbor search-index` in process on a SQLite file: prints the settings, turns tool outputs on
// (a search then finds a word only an output holds) and off, says when nothing changed, and
// refuses a value other than on or off.
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { temporaryFolder } from "./support/folder.js";
import { runCliInProcess as runCli } from "./support/in-process.js";

describe("arbor search-index", () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());

  it("shows and sets whether tool outputs are searchable", async () => {
    const db = join(folder.path, "tools.db");
    const store = openSqlite(db);
    const manager = SessionManager.create(store);
    const info = await manager.create("agent");
    await manager.append(info.id, {
      id: "a1",
      role: "assistant",
      parts: [
        {
          type: "tool-bash",
          toolCallId: "call-1",
          state: "output-available",
          input: { command: "npm test" },
          output: "FAIL checkout flamingo.test.ts",
        },
      ],
    });
    store.close();
    const arbor = (...args: string[]) => runCli([...args, "--db", db]);

    expect((await arbor("search-index")).stdout.trim()).toBe(
      "Tool outputs: off",
    );
    const found = async () =>
      (
        JSON.parse((await arbor("search", "flamingo", "--json")).stdout) as {
          results: Array<{ id: string }>;
        }
      ).results.map((hit) => hit.id);
    expect(await found()).toEqual([]);

    const on = await arbor("search-index", "--tool-outputs", "on");
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout.trim()).toBe("Tool outputs: on (re-indexed 1 message).");
    expect(await found()).toEqual(["a1"]);
    expect(
      (await arbor("search-index", "--tool-outputs", "on")).stdout.trim(),
    ).toBe("Tool outputs: already on.");
    expect(JSON.parse((await arbor("search-index", "--json")).stdout)).toEqual({
      toolOutputs: true,
    });

    const off = await arbor("search-index", "--tool-outputs", "off", "--json");
    expect(JSON.parse(off.stdout)).toEqual({
      settings: { toolOutputs: false },
      changed: true,
      reindexed: 1,
    });
    expect(await found()).toEqual([]);

    const bad = await arbor("search-index", "--tool-outputs", "yes");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tool-outputs takes on or off, got "yes"');
  });
});
