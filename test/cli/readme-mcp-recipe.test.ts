// The README's MCP recipe on a fresh machine: HOME is an empty folder (no ~/.arbor yet), and the
// README's own command lines run through a shell, `arbor` being the compiled bin. The import
// creates the database's folder; `arbor mcp` then serves what was imported to the MCP SDK's own
// client. A reading command on a database that does not exist is DATABASE_NOT_FOUND and creates
// nothing.
import { spawn } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, cleanEnv, temporaryFolder, type CliRun } from "./support/cli.js";

const temporary = temporaryFolder();
const home = join(temporary.path, "home");
const work = join(temporary.path, "work");
const bin = join(temporary.path, "bin");
mkdirSync(home);
mkdirSync(work);
mkdirSync(bin);
// `arbor` on the PATH, as `npm install -g arbor-memory` puts it there.
writeFileSync(
  join(bin, "arbor"),
  `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
);
chmodSync(join(bin, "arbor"), 0o755);
copyFileSync(
  "test/cli/fixtures/chatgpt-conversations.json",
  join(work, "conversations.json"),
);
const env = cleanEnv({
  HOME: home,
  PATH: `${bin}:${process.env.PATH ?? ""}`,
}) as Record<string, string>;

afterAll(() => temporary.remove());

/** The README's recipe, line by line. */
function readmeRecipe(): { importLine: string; mcpLine: string } {
  const readme = readFileSync("README.md", "utf8");
  const importLine = /^arbor import conversations\.json --db \S+$/m.exec(
    readme,
  )?.[0];
  const mcpLine = /^claude mcp add arbor -- (arbor mcp --db \S+)$/m.exec(
    readme,
  )?.[1];
  if (!importLine || !mcpLine)
    throw new Error("[test] the README's MCP recipe changed: update this test");
  return { importLine, mcpLine };
}

/** One shell command line in the work folder, with the fresh HOME. */
function shell(line: string): Promise<CliRun> {
  return new Promise((done, fail) => {
    const child = spawn("/bin/sh", ["-c", line], { cwd: work, env });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

describe("the README's MCP recipe on a fresh machine", () => {
  it("imports into ~/.arbor/memory.db (creating ~/.arbor), and arbor mcp serves what was imported", async () => {
    const { importLine, mcpLine } = readmeRecipe();
    expect(existsSync(join(home, ".arbor"))).toBe(false);
    const imported = await shell(importLine);
    expect(imported.stderr).toContain("Imported 1 session(s)");
    expect(imported.code).toBe(0);
    expect(existsSync(join(home, ".arbor", "memory.db"))).toBe(true);

    const client = new Client({ name: "arbor-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: "/bin/sh",
        args: ["-c", mcpLine],
        cwd: work,
        env,
        stderr: "pipe",
      }),
    );
    try {
      const answer = await client.callTool({
        name: "list_sessions",
        arguments: {},
      });
      expect(answer.isError).toBeFalsy();
      expect(JSON.stringify(answer.content)).toContain("Sourdough starter");
    } finally {
      await client.close();
    }
  });

  it("a reading command on a database that does not exist: DATABASE_NOT_FOUND, no folder or file created", async () => {
    const run = await shell("arbor sessions list --db ~/.memory/other.db");
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `arbor: DATABASE_NOT_FOUND: No database at ${join(home, ".memory", "other.db")}: check --db (or ARBOR_DB); arbor import, arbor serve and arbor mcp create one\n`,
    );
    expect(existsSync(join(home, ".memory"))).toBe(false);
  });
});
