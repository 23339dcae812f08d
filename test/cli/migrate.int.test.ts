import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { runCli, startServe } from "./support/cli.js";

const CHATGPT = fileURLToPath(
  new URL("./fixtures/chatgpt-conversations.json", import.meta.url),
);

describe("arbor migrate --print", () => {
  it("prints the whole schema and the API key table without a database", async () => {
    const run = await runCli(["migrate", "--print"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^-- Arbor PostgreSQL schema, version \d+, text search configuration 'english'\./,
    );
    expect(run.stdout).toContain(
      "CREATE TABLE IF NOT EXISTS assistant_messages",
    );
    expect(run.stdout).toContain("CREATE TABLE IF NOT EXISTS arbor_api_keys");
  });

  it("takes another text-search configuration", async () => {
    const run = await runCli(["migrate", "--print", "--text-search", "simple"]);
    expect(run.stdout).toContain("text search configuration 'simple'");
  });

  it("needs a URL to apply, with exit code 2", async () => {
    const run = await runCli(["migrate"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("arbor migrate needs --postgres <url>");
  });
});

describePostgres("arbor migrate and the CLI on PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ schema: false });
  });
  afterAll(() => database?.drop());

  const tables = async () =>
    (
      await database.pool.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
      )
    ).rows.map((row) => row.table_name);

  it("applies the schema to an empty database, and again without harm", async () => {
    expect(await tables()).toEqual([]);
    const first = await runCli(["migrate", "--postgres", database.url]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /^PostgreSQL schema version \d+ applied \(text search 'english'\), API key table ready\.\n$/,
    );
    expect(await tables()).toEqual(
      expect.arrayContaining([
        "assistant_messages",
        "assistant_sessions",
        "arbor_api_keys",
      ]),
    );
    const second = await runCli(["migrate"], {
      env: { DATABASE_URL: database.url },
    });
    expect(second.code).toBe(0);
  });

  it("imports, draws, searches and manages keys over --postgres", async () => {
    const imported = await runCli([
      "import",
      CHATGPT,
      "--postgres",
      database.url,
    ]);
    expect(imported.code).toBe(0);
    const sessionId = imported.stdout.split(" ")[0]!;
    const tree = await runCli(["tree", sessionId, "--postgres", database.url]);
    expect(tree.stdout).toContain("└─● a2 assistant: Every 12 hours");
    const search = await runCli(["search", "refrigerated", "--json"], {
      env: { DATABASE_URL: database.url },
    });
    expect(
      (
        JSON.parse(search.stdout) as { results: Array<{ id: string }> }
      ).results.map((result) => result.id),
    ).toEqual(["a2"]);

    const created = await runCli([
      "keys",
      "create",
      "--tenant",
      "acme",
      "--postgres",
      database.url,
    ]);
    expect(created.code).toBe(0);
    const rows = await database.pool.query<{ tenant: string }>(
      "SELECT tenant FROM arbor_api_keys",
    );
    expect(rows.rows).toEqual([{ tenant: "acme" }]);
  });

  it("serves over --postgres, with the key created there", async () => {
    const created = await runCli([
      "keys",
      "create",
      "--tenant",
      "nobody",
      "--postgres",
      database.url,
    ]);
    const key = created.stdout.trim().split("\n")[1]!;
    const server = await startServe(["--postgres", database.url]);
    try {
      expect(server.output().stdout).toContain("Store: PostgreSQL; auth on");
      expect((await fetch(`${server.url}/v1/sessions`)).status).toBe(401);
      const answer = await fetch(`${server.url}/v1/sessions`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(answer.status).toBe(200);
      // The imported session has no owner, so the tenant "nobody" sees none.
      expect(
        ((await answer.json()) as { sessions: unknown[] }).sessions,
      ).toEqual([]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it("fails with a clear message when the server cannot be reached", async () => {
    const run = await runCli([
      "sessions",
      "list",
      "--postgres",
      "postgres://postgres@127.0.0.1:1/none",
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^arbor: STORAGE_UNAVAILABLE: Cannot connect to PostgreSQL at 127\.0\.0\.1:1\/none \(.*ECONNREFUSED/,
    );
    expect(run.stderr).not.toContain("    at ");
  });
});
