import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { temporaryFolder } from "./support/folder.js";
// In-process: main() itself, no subprocess per command (help.test.ts runs the built bin).
import { runCliInProcess as runCli } from "./support/in-process.js";
import { seedBranchedDatabase, SEEDED, type Seeded } from "./support/seed.js";

describe("arbor sessions, tree, history and search on a branched session", () => {
  const folder = temporaryFolder();
  const db = join(folder.path, "arbor.db");
  let ids: Seeded;
  const arbor = (...args: string[]) => runCli([...args, "--db", db]);

  beforeAll(async () => {
    ids = await seedBranchedDatabase(db);
  });
  afterAll(() => folder.remove());

  it("sessions list shows both sessions with their message counts", async () => {
    const run = await arbor("sessions", "list");
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^ID\s+MESSAGES\s+UPDATED\s+NAME$/);
    const trip = lines.find((line) => line.startsWith(ids.sessionId));
    expect(trip).toMatch(/\s6\s.*Deployment planning$/);
    expect(lines.some((line) => line.startsWith(ids.otherSessionId))).toBe(
      true,
    );
  });

  it("sessions list --owner filters and --json prints rows for scripts", async () => {
    const run = await arbor("sessions", "list", "--owner", "acme", "--json");
    expect(run.code).toBe(0);
    const { sessions } = JSON.parse(run.stdout) as {
      sessions: Array<{ id: string; name: string; messageCount: number }>;
    };
    expect(sessions.map((row) => [row.id, row.name, row.messageCount])).toEqual(
      [[ids.sessionId, "Deployment planning", 6]],
    );
  });

  it("sessions show prints the owner, counts, active leaf and overlays", async () => {
    const run = await arbor("sessions", "show", ids.sessionId);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^owner\s+acme$/m);
    expect(run.stdout).toMatch(/^messages\s+6$/m);
    expect(run.stdout).toMatch(/^active leaf\s+a2$/m);
    expect(run.stdout).toMatch(/^overlays\s+1$/m);
  });

  it("tree draws both branches, marks the active path and shows the overlay's range", async () => {
    const run = await arbor("tree", ids.sessionId);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        "● u1 user: When is the production deployment?",
        "● a1 assistant: The deployment to production is on Friday.",
        "  ⤷ summary " +
          "ID covers u1 … a1 (2 messages): The user asked when the deployment is; it is on Friday.",
        "● u2 user: Can we move it to Thursday?",
        "├─● a2 assistant: Thursday works, I will tell the team.  ◀ active",
        "└─○ a2b assistant: Thursday is possible if QA signs off by Wednesday.",
        "  ○ u3 user: Then ask QA about the marmalade release.",
        "",
      ]
        .join("\n")
        .replace("ID", overlayId(run.stdout)),
    );
  });

  it("history follows the active branch, and --leaf reads the other one", async () => {
    const active = await arbor("history", ids.sessionId, "--json");
    const other = await arbor(
      "history",
      ids.sessionId,
      "--leaf",
      SEEDED.otherLeaf,
      "--json",
    );
    const idsOf = (run: { stdout: string }) =>
      (
        JSON.parse(run.stdout) as { messages: Array<{ id: string }> }
      ).messages.map((message) => message.id);
    // The overlay replaces u1 … a1 with one summary message.
    expect(idsOf(active).slice(1)).toEqual(["u2", "a2"]);
    expect(idsOf(other).slice(1)).toEqual(["u2", "a2b", "u3"]);

    const text = await arbor("history", ids.sessionId, "--leaf", "u3");
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^── summary · /);
    expect(text.stdout).toContain(
      "── assistant · a2b\nThursday is possible if QA signs off by Wednesday.",
    );
    expect(text.stdout).not.toContain("Thursday works");
  });

  it("history --leaf with an unknown message fails with exit 1 and names it", async () => {
    const run = await arbor("history", ids.sessionId, "--leaf", "nope");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No message "nope"');
    expect(run.stderr).not.toContain("    at ");
  });

  it("search finds messages across sessions, and --session narrows it", async () => {
    const everywhere = await arbor("search", "marmalade");
    expect(everywhere.code).toBe(0);
    expect(everywhere.stdout).toContain(`${ids.sessionId}  u3`);
    expect(everywhere.stdout).toContain(`${ids.otherSessionId}`);

    const one = await arbor(
      "search",
      "marmalade",
      "--session",
      ids.otherSessionId,
      "--json",
    );
    const { results } = JSON.parse(one.stdout) as {
      results: Array<{ id: string }>;
    };
    expect(results.map((result) => result.id)).toEqual(["n1"]);
  });

  it("search --prefix matches the last word as the start of a word", async () => {
    const whole = await arbor("search", "marmal", "--json");
    expect(JSON.parse(whole.stdout)).toEqual({ results: [] });
    const typed = await arbor("search", "marmal", "--prefix", "--json");
    const { results } = JSON.parse(typed.stdout) as {
      results: Array<{ id: string }>;
    };
    expect(results.map((result) => result.id)).toContain("n1");
  });

  it("an unknown session is exit 1 with the code and a hint, no stack", async () => {
    const run = await arbor("tree", "missing-id");
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'arbor: SESSION_NOT_FOUND: No session "missing-id" (arbor sessions list shows the ids)\n',
    );
  });

  it("ARBOR_DEBUG shows the stack", async () => {
    const run = await runCli(["tree", "missing-id", "--db", db], {
      env: { ARBOR_DEBUG: "1" },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("    at ");
  });

  it("sessions rename and delete change the store", async () => {
    expect(
      (await arbor("sessions", "rename", ids.otherSessionId, "Shopping"))
        .stdout,
    ).toBe(`Renamed ${ids.otherSessionId} to "Shopping".\n`);
    expect(
      (await arbor("sessions", "show", ids.otherSessionId)).stdout,
    ).toMatch(/^name\s+Shopping$/m);
    expect((await arbor("sessions", "delete", ids.otherSessionId)).code).toBe(
      0,
    );
    const gone = await arbor("sessions", "show", ids.otherSessionId);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain("SESSION_NOT_FOUND");
  });
});

function overlayId(output: string): string {
  return /summary (\S+) covers/.exec(output)?.[1] ?? "(no overlay line)";
}
