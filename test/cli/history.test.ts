// `arbor history` on an imported Claude Code 2.x session, through the built bin: each tool call
// shows its input and a bounded output (as `export --format markdown` writes them), and injected
// context (the local-command caveat, a slash command's wrapper, its output) is one folded line,
// whole with --full.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, temporaryFolder } from "./support/cli.js";

const SESSION_FILE = fileURLToPath(
  new URL(
    "../formats/fixtures/claude-code-2x/5b0e7c1d-3f2a-4c8e-9d61-0a7e4f2b9c35.jsonl",
    import.meta.url,
  ),
);

describe("arbor history of an imported Claude Code session", () => {
  const folder = temporaryFolder();
  const db = join(folder.path, "arbor.db");
  const arbor = (...args: string[]) => runCli([...args, "--db", db]);
  let sessionId: string;

  beforeAll(async () => {
    const imported = await arbor("import", SESSION_FILE);
    expect(imported.code).toBe(0);
    const list = await arbor("sessions", "list", "--json");
    sessionId = (JSON.parse(list.stdout) as { sessions: Array<{ id: string }> })
      .sessions[0]!.id;
  }, 60_000);
  afterAll(() => folder.remove());

  it("shows each tool call's input and output, and folds injected context to one line", async () => {
    const run = await arbor("history", sessionId);
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out).not.toMatch(/^\[tool \w+\]$/m);
    expect(out).toContain(
      '**Tool `Bash`** `{"command":"sed -n 36,48p src/invoice/lines.ts","description":"Show the line total code"}` → `export function lineTotal(line: Line): number {',
    );
    expect(out).toContain(
      '**Tool `Task`** `{"subagent_type":"Explore","description":"Find money rounding sites"',
    );
    // The subagent's report is longer than the preview: cut, with the whole length named.
    expect(out).toMatch(
      /→ `Rounding sites: - src\/invoice\/lines\.ts:42 .*… \(\d+ characters\)`/,
    );
    expect(out).toContain("> Off-by-a-cent errors usually come from rounding");
    expect(out).toContain("[context: system-reminder, 1 line folded]");
    expect(out).toContain("[context: slash-command, 3 lines folded]");
    expect(out).toContain("[context: command-output, 1 line folded]");
    expect(out).not.toContain("<command-name>");
    expect(out).toContain(
      "Totals on the invoice export are off by a cent now and then.",
    );
  });

  it("--full shows injected context and tool output whole", async () => {
    const run = await arbor("history", sessionId, "--full");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("<command-name>/clear</command-name>");
    expect(run.stdout).toContain("Caveat: The messages below were generated");
    expect(run.stdout).toContain(
      "- src/export/csv.ts:88 rounds the grand total (after summing)",
    );
    expect(run.stdout).not.toContain("folded]");
  });
});
