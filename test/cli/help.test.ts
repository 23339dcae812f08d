import { describe, expect, it } from "vitest";
import { runCli } from "./support/cli.js";
import { runCliInProcess } from "./support/in-process.js";

const COMMANDS = [
  ["serve"],
  ["keys", "create"],
  ["keys", "list"],
  ["keys", "revoke"],
  ["sessions", "list"],
  ["sessions", "show"],
  ["sessions", "rename"],
  ["sessions", "delete"],
  ["tree"],
  ["history"],
  ["search"],
  ["export"],
  ["import"],
  ["prune"],
  ["migrate"],
  ["chat"],
];

describe("arbor help and usage errors", () => {
  // Through the built bin once; the other cases call main() in-process (no spawn each).
  it("lists every command in arbor --help", async () => {
    const run = await runCli(["--help"]);
    expect(run.code).toBe(0);
    for (const name of [
      "serve",
      "keys",
      "sessions",
      "tree",
      "history",
      "search",
      "export",
      "import",
      "prune",
      "migrate",
      "chat",
    ])
      expect(run.stdout).toMatch(new RegExp(`^  ${name} `, "m"));
  });

  it.each(COMMANDS)(
    "arbor %s %s --help prints its usage and options",
    async (...words) => {
      const run = await runCliInProcess([...words.filter(Boolean), "--help"]);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe("");
      expect(run.stdout).toContain(
        `Usage: arbor ${words.filter(Boolean).join(" ")}`,
      );
      expect(run.stdout).toContain("-h, --help");
    },
  );

  it("lists a group's subcommands", async () => {
    const run = await runCliInProcess(["keys", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("keys create --tenant <name>");
    expect(run.stdout).toContain("keys revoke <id>");
  });

  it("answers an unknown command with exit code 2 and a hint", async () => {
    const run = await runCliInProcess(["frobnicate"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      'arbor: Unknown command "frobnicate" (see arbor --help)\n',
    );
  });

  it("answers an unknown subcommand with exit code 2", async () => {
    const run = await runCliInProcess(["sessions", "purge"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Unknown command "arbor sessions purge"');
  });

  it("answers an unknown option with exit code 2, naming the option", async () => {
    const run = await runCliInProcess(["tree", "abc", "--colour"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--colour");
    expect(run.stderr).toContain("arbor tree --help");
  });

  it("answers a missing argument with exit code 2", async () => {
    const run = await runCliInProcess(["history"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("arbor history needs <session>");
  });

  it("answers a malformed number with exit code 2", async () => {
    const run = await runCliInProcess(["sessions", "list", "--limit", "ten"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--limit takes a positive integer, got "ten"');
  });

  it("prints usage with exit code 2 when run without a command", async () => {
    const run = await runCliInProcess([]);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain("Usage: arbor <command>");
  });
});
