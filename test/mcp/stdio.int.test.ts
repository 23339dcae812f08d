// `arbor mcp` as MCP clients launch it: the compiled CLI spawned with the SDK's stdio transport
// (run `npm run build` first). One process on a seeded SQLite file runs the shared cases; two
// more on a fresh file race: their notes session is created once, and no note is lost or doubled.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { CLI, cleanEnv } from "../cli/support/cli.js";
import { seedMemory, withMemoryBlock } from "./support/fixtures.js";
import { mcpCases, ok } from "./support/suite.js";

const folder = mkdtempSync(join(tmpdir(), "arbor-mcp-stdio-"));
const seeded = join(folder, "seeded.db");
const shared = join(folder, "shared.db");
const clients: Client[] = [];

async function spawnMcp(args: string[]): Promise<Client> {
  const client = new Client({ name: "arbor-test", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", ...args],
    env: cleanEnv() as Record<string, string>,
    stderr: "pipe",
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

let main: Client;
let first: Client;
let second: Client;

beforeAll(async () => {
  const database = openSqlite(seeded);
  await seedMemory(withMemoryBlock(SessionManager.create(database)));
  database.close();
  [main, first, second] = await Promise.all([
    spawnMcp(["--db", seeded]),
    spawnMcp(["--db", shared]),
    spawnMcp(["--db", shared]),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  rmSync(folder, { recursive: true, force: true });
});

describe("arbor mcp over stdio (SQLite)", () => {
  mcpCases({ client: () => main, notesId: "arbor-notes" });

  it("two processes writing one SQLite file: one notes session, every note once", async () => {
    const writes = [first, second].flatMap((client, process) =>
      Array.from({ length: 10 }, (_, index) =>
        ok(client, "remember", {
          text: `note ${process}-${index} about the launch budget`,
        }),
      ),
    );
    const answers = await Promise.all(writes);
    expect(new Set(answers.map((answer) => answer.sessionId))).toEqual(
      new Set(["arbor-notes"]),
    );
    // Both processes append to one named session at the same time as well.
    const extra = await Promise.all(
      [first, second].flatMap((client) =>
        Array.from({ length: 5 }, () =>
          ok(client, "remember", {
            text: "appended",
            sessionId: "arbor-notes",
          }),
        ),
      ),
    );
    const database = openSqlite(shared);
    try {
      const manager = SessionManager.create(database);
      const sessions = await manager.list();
      expect(sessions.map((info) => info.id)).toEqual(["arbor-notes"]);
      const snapshot = await manager.exportSession("arbor-notes");
      const stored = snapshot.messages.map((entry) => entry.message.id).sort();
      const written = [...answers, ...extra]
        .map((answer) => answer.messageId)
        .sort();
      expect(stored).toEqual(written);
    } finally {
      database.close();
    }
    // Concurrent appends chain: every note is on the one active branch.
    const chain = await ok(first, "read_conversation", {
      sessionId: "arbor-notes",
      limit: 100,
    });
    expect(chain.total).toBe(30);
    const found = await ok(second, "search_memory", {
      query: "launch budget",
      limit: 100,
    });
    expect(found.results.length).toBe(20);
  });

  it("refuses bad options before speaking MCP", async () => {
    const { runCli } = await import("../cli/support/cli.js");
    const run = await runCli(["mcp", "--token-budget", "50", "--db", shared]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--token-budget must be at least 200");
    const help = await runCli(["mcp", "--help"]);
    expect(help.stdout).toContain("--owner <tenant>");
  });
});

describe("a missing MCP SDK", () => {
  it("becomes MISSING_DEPENDENCY with the install command; other failures pass through", async () => {
    const { sdkLoadError } = await import("../../src/mcp/sdk.js");
    const notFound = Object.assign(
      new Error(
        "Cannot find package '@modelcontextprotocol/sdk' imported from /app/dist/mcp/stdio.js",
      ),
      { code: "ERR_MODULE_NOT_FOUND" },
    );
    const converted = sdkLoadError(notFound) as {
      code?: string;
      message?: string;
    };
    expect(converted.code).toBe("MISSING_DEPENDENCY");
    expect(converted.message).toContain(
      "npm install @modelcontextprotocol/sdk@1",
    );
    const other = new Error("disk full");
    expect(sdkLoadError(other)).toBe(other);
  });
});
