// `arbor prune` as a subprocess on a seeded SQLite file: dry runs change nothing, abandoned
// branches go while the active path stays whole, --keep-latest and --owner bound what goes.
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { temporaryFolder } from "./support/folder.js";
// In-process: main() itself, no subprocess per command (help.test.ts runs the built bin).
import { runCliInProcess as runCli } from "./support/in-process.js";
import { seedBranchedDatabase, type Seeded } from "./support/seed.js";

interface Receipt {
  dryRun: boolean;
  sessions: number;
  messages: number;
  indexRows: number;
  branches: number;
  sessionIds: string[];
  prunedAt: string;
}

describe("arbor prune", () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());
  let count = 0;

  /** A fresh seeded database per test: prune changes it. */
  async function seeded(): Promise<{
    ids: Seeded;
    arbor: (...args: string[]) => ReturnType<typeof runCli>;
  }> {
    const db = join(folder.path, `arbor-${count++}.db`);
    const ids = await seedBranchedDatabase(db);
    return { ids, arbor: (...args) => runCli([...args, "--db", db]) };
  }

  async function treeIds(
    arbor: (...args: string[]) => ReturnType<typeof runCli>,
    id: string,
  ): Promise<string[]> {
    const run = await arbor("tree", id, "--json");
    expect(run.code, run.stderr).toBe(0);
    const tree = JSON.parse(run.stdout) as { nodes: Array<{ id: string }> };
    return tree.nodes.map((node) => node.id).sort();
  }

  it("--dry-run --json counts the abandoned branch and changes nothing", async () => {
    const { ids, arbor } = await seeded();
    const run = await arbor(
      "prune",
      "--abandoned-branches-older-than",
      "0s",
      "--dry-run",
      "--json",
    );
    expect(run.code, run.stderr).toBe(0);
    const receipt = JSON.parse(run.stdout) as Receipt;
    expect(receipt).toMatchObject({
      dryRun: true,
      sessions: 0,
      messages: 2,
      branches: 1,
      sessionIds: [],
    });
    expect(Number.isNaN(Date.parse(receipt.prunedAt))).toBe(false);
    expect(await treeIds(arbor, ids.sessionId)).toEqual(
      ["a1", "a2", "a2b", "u1", "u2", "u3"].sort(),
    );
  });

  it("removes the abandoned branch, keeps the active path, and prints the receipt", async () => {
    const { ids, arbor } = await seeded();
    const run = await arbor("prune", "--abandoned-branches-older-than", "0s");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Removed 0 sessions and 1 abandoned branch.");
    expect(run.stdout).toMatch(/^messages\s+2$/m);
    expect(run.stdout).toMatch(/^At \d{4}-\d{2}-\d{2}T/m);
    expect(await treeIds(arbor, ids.sessionId)).toEqual(
      ["a1", "a2", "u1", "u2"].sort(),
    );
    const search = await arbor("search", "marmalade", "--json");
    expect(search.stdout).not.toContain("u3");
    // Nothing left to prune: a second run says so.
    const again = await arbor("prune", "--abandoned-branches-older-than", "0s");
    expect(again.stdout).toContain("Nothing to prune.");
  });

  it("a branch newer than the age stays", async () => {
    const { ids, arbor } = await seeded();
    const run = await arbor(
      "prune",
      "--abandoned-branches-older-than",
      "30d",
      "--json",
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ messages: 0, branches: 0 });
    expect(await treeIds(arbor, ids.sessionId)).toHaveLength(6);
  });

  it("--keep-latest keeps the newest sessions and deletes the rest", async () => {
    const { ids, arbor } = await seeded();
    const run = await arbor("prune", "--keep-latest", "1", "--json");
    expect(run.code, run.stderr).toBe(0);
    const receipt = JSON.parse(run.stdout) as Receipt;
    expect(receipt.sessions).toBe(1);
    const list = await arbor("sessions", "list", "--json");
    const { sessions } = JSON.parse(list.stdout) as {
      sessions: Array<{ id: string }>;
    };
    expect(sessions).toHaveLength(1);
    expect([...receipt.sessionIds, sessions[0]!.id].sort()).toEqual(
      [ids.sessionId, ids.otherSessionId].sort(),
    );
  });

  it("--older-than an ISO date with --owner deletes only that owner's sessions", async () => {
    const { ids, arbor } = await seeded();
    const run = await arbor(
      "prune",
      "--older-than",
      "2999-01-01",
      "--owner",
      "someone-else",
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Removed 1 session and 0 abandoned branches.");
    expect(run.stdout).toMatch(
      new RegExp(`^${ids.otherSessionId}\\s+\\d{4}-\\d{2}-\\d{2} `, "m"),
    );
    const left = await arbor("sessions", "list", "--json");
    const { sessions } = JSON.parse(left.stdout) as {
      sessions: Array<{ id: string }>;
    };
    expect(sessions.map((row) => row.id)).toEqual([ids.sessionId]);
  });

  it("--older-than an age keeps sessions updated since", async () => {
    const { arbor } = await seeded();
    const run = await arbor("prune", "--older-than", "12h", "--dry-run");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Nothing to prune (dry run).");
  });

  it.each([
    [
      [],
      /needs --older-than, --keep-latest or --abandoned-branches-older-than/,
    ],
    [["--older-than", "yesterday"], /--older-than takes an age like 30d/],
    [["--older-than", "2026-13-45"], /--older-than takes an age/],
    [["--keep-latest", "-1"], /--keep-latest/],
    [["--abandoned-branches-older-than", "30"], /takes an age/],
  ])("rejects %j with a usage error", async (args, message) => {
    const { arbor } = await seeded();
    const run = await arbor("prune", ...args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe("");
  });
});
