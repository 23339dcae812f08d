// MCP on PostgreSQL (ARBOR_TEST_PG_URL) across processes: two `arbor serve` processes share one
// database, and the SDK Client's requests alternate between them (stateless Streamable HTTP
// behind several servers) while the shared cases run with an API key; another tenant's key sees
// nothing of them; then an `arbor mcp --postgres` process and the HTTP servers write the same
// tenant's notes at once. Needs `npm run build` first.
import { postgresBackend } from "../../src/postgres/index.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgresApiKeyStore } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import {
  CLI,
  cleanEnv,
  startServe,
  type ServeProcess,
} from "../cli/support/cli.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { seedMemory, withMemoryBlock } from "./support/fixtures.js";
import { connectHttp } from "./support/http-client.js";
import { mcpCases, ok } from "./support/suite.js";

describePostgres(
  "MCP on PostgreSQL: two arbor serve processes and arbor mcp",
  () => {
    let database: TestDatabase | undefined;
    const servers: ServeProcess[] = [];
    const clients: Client[] = [];
    const keys = new Map<string, string>();
    let acme: Client;

    /** Sends each request to the next server in turn. */
    let turn = 0;
    const roundRobin = (async (
      input: string | URL | Request,
      init?: RequestInit,
    ) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const target = new URL(servers[turn++ % servers.length]!.url);
      url.host = target.host;
      return fetch(url, init);
    }) as typeof fetch;

    const http = async (tenant: string) => {
      const client = await connectHttp(`${servers[0]!.url}/mcp`, {
        key: keys.get(tenant)!,
        fetch: roundRobin,
      });
      clients.push(client);
      return client;
    };

    beforeAll(async () => {
      database = await createTestDatabase();
      await seedMemory(
        withMemoryBlock(SessionManager.create(postgresBackend(database.pool))),
        "acme",
      );
      const store = new PostgresApiKeyStore(database.pool);
      for (const tenant of ["acme", "globex", "initech"])
        keys.set(tenant, (await store.create(tenant)).key);
      servers.push(
        ...(await Promise.all(
          [0, 1].map(() =>
            startServe(["--postgres", database!.url, "--skip-sample"]),
          ),
        )),
      );
      acme = await http("acme");
    }, 60_000);

    afterAll(async () => {
      await Promise.all(clients.map((client) => client.close()));
      await Promise.all(servers.map((server) => server.stop()));
      await database?.drop();
    });

    mcpCases({ client: () => acme, notesId: "arbor-notes-acme" });

    it("spread the requests over both servers", () => {
      expect(turn).toBeGreaterThan(50);
    });

    it("keeps tenants apart over HTTP", async () => {
      const globex = await http("globex");
      expect((await ok(globex, "list_sessions", {})).sessions).toEqual([]);
      const read = await globex.callTool({
        name: "read_conversation",
        arguments: { sessionId: "launch" },
      });
      expect(read.isError).toBe(true);
      expect(JSON.stringify(read.content)).toContain("SESSION_NOT_FOUND");
    });

    it("arbor mcp and arbor serve write one tenant's notes at once: nothing lost, nothing doubled", async () => {
      const stdio = new Client({ name: "arbor-test", version: "1.0.0" });
      await stdio.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [CLI, "mcp", "--postgres", database!.url, "--owner", "initech"],
          env: cleanEnv() as Record<string, string>,
          stderr: "pipe",
        }),
      );
      clients.push(stdio);
      const overHttp = await http("initech");
      const answers = await Promise.all(
        [stdio, overHttp].flatMap((client, side) =>
          Array.from({ length: 8 }, (_, index) =>
            ok(client, "remember", { text: `initech note ${side}-${index}` }),
          ),
        ),
      );
      expect(new Set(answers.map((answer) => answer.sessionId))).toEqual(
        new Set(["arbor-notes-initech"]),
      );
      const manager = SessionManager.create(postgresBackend(database!.pool));
      expect(
        (await manager.list({ ownerId: "initech" })).map((s) => s.id),
      ).toEqual(["arbor-notes-initech"]);
      const snapshot = await manager.exportSession("arbor-notes-initech");
      expect(snapshot.messages.map((entry) => entry.message.id).sort()).toEqual(
        answers.map((answer) => answer.messageId).sort(),
      );
      // Concurrent appends chain: every note is on the one active branch.
      const chain = await ok(overHttp, "read_conversation", {
        sessionId: "arbor-notes-initech",
        limit: 100,
      });
      expect(chain.total).toBe(16);
    });
  },
);
