// MCP over Streamable HTTP against createApp() in this process (app.fetch), with the SDK's own
// Client: the shared cases on an in-memory manager and on SQLite, tenant isolation through API
// keys, the token budget option, storage failures as isError results, and the stateless
// endpoint's answers to GET and to requests without a key.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpEndpoint } from "../../src/mcp/index.js";
import { createApp, InMemoryApiKeyStore } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { estimateStringTokensMultilingual } from "../../src/utils/index.js";
import { seedMemory } from "./support/fixtures.js";
import { connectHttp } from "./support/http-client.js";
import { call, failure, mcpCases, ok, textOf } from "./support/suite.js";

const URL_BASE = "http://arbor.test";

function configured(manager: SessionManager): SessionManager {
  return manager
    .withContext("memory", { description: "Facts", maxTokens: 2000 })
    .withCachedPrompt();
}

function appFetch(app: {
  fetch: (request: Request) => Response | Promise<Response>;
}) {
  return ((input: string | URL | Request, init?: RequestInit) =>
    Promise.resolve(app.fetch(new Request(input, init)))) as typeof fetch;
}

describe("MCP over createApp(), in memory, with API keys", () => {
  let client: Client;
  let other: Client;
  const manager = configured(SessionManager.inMemory());
  const keys = new InMemoryApiKeyStore();
  const app = createApp({ manager, auth: keys, mcp: mcpEndpoint() });
  let keyB = "";

  beforeAll(async () => {
    await seedMemory(manager, "acme");
    const { key } = await keys.create("acme");
    keyB = (await keys.create("globex")).key;
    client = await connectHttp(`${URL_BASE}/mcp`, {
      key,
      fetch: appFetch(app),
    });
    other = await connectHttp(`${URL_BASE}/mcp`, {
      key: keyB,
      fetch: appFetch(app),
    });
  });
  afterAll(async () => {
    await client?.close();
    await other?.close();
  });

  mcpCases({ client: () => client, notesId: "arbor-notes-acme" });

  it("shows another tenant's sessions exactly like missing ones", async () => {
    expect((await ok(other, "list_sessions", {})).sessions).toEqual([]);
    expect(
      (await ok(other, "search_memory", { query: "launch budget" })).results,
    ).toEqual([]);
    for (const [name, args] of [
      ["read_conversation", { sessionId: "{id}" }],
      ["get_branches", { sessionId: "{id}", messageId: "u1" }],
      ["search_memory", { query: "budget", sessionId: "{id}" }],
      ["remember", { text: "intrusion", sessionId: "{id}" }],
      ["read_memory", { sessionId: "{id}" }],
      [
        "update_memory",
        { sessionId: "{id}", label: "memory", content: "x", mode: "replace" },
      ],
      ["forget", { sessionId: "{id}" }],
    ] as const) {
      const fill = (id: string) =>
        JSON.parse(JSON.stringify(args).replaceAll("{id}", id)) as Record<
          string,
          unknown
        >;
      const foreign = await call(other, name, fill("launch"));
      const absent = await call(other, name, fill("no-such-session"));
      expect(foreign.isError, name).toBe(true);
      expect(textOf(foreign).replaceAll("launch", "<id>"), name).toBe(
        textOf(absent).replaceAll("no-such-session", "<id>"),
      );
    }
    await expect(
      other.readResource({ uri: "arbor://sessions/launch" }),
    ).rejects.toThrow(/SESSION_NOT_FOUND/);
    expect((await other.listResources()).resources).toEqual([]);
    // Nothing of acme's was touched, and globex's notes are its own.
    expect(
      (await ok(client, "read_conversation", { sessionId: "launch" })).total,
    ).toBeGreaterThan(5);
    const note = await ok(other, "remember", { text: "Globex note" });
    expect(note.sessionId).toBe("arbor-notes-globex");
    expect(await manager.getOwner("arbor-notes-globex")).toBe("globex");
    // Ranked text search matches acme's own "notes" too; none of the hits is globex's.
    const seen = (await ok(client, "search_memory", { query: "Globex note" }))
      .results as Array<{ sessionId: string; snippet: string }>;
    expect(
      seen.filter((hit) => hit.sessionId === "arbor-notes-globex"),
    ).toEqual([]);
    expect(seen.filter((hit) => hit.snippet.includes("Globex"))).toEqual([]);
  });

  it("needs an API key, answers GET with 405 in stateless mode, refuses unlisted origins", async () => {
    const denied = await app.request("/mcp", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(denied.status).toBe(401);
    const get = await app.request("/mcp", {
      headers: { Authorization: `Bearer ${keyB}`, Accept: "text/event-stream" },
    });
    expect(get.status).toBe(405);
    // A web page (DNS rebinding to a local server) sends an Origin: refused unless listed.
    const fromPage = await app.request("/mcp", {
      method: "POST",
      headers: {
        Authorization: `Bearer ${keyB}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        Origin: "http://evil.example",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(fromPage.status).toBe(403);
    const listed = createApp({
      manager,
      auth: keys,
      mcp: mcpEndpoint({ allowedOrigins: ["http://inspector.test"] }),
    });
    const allowed = await listed.request("/mcp", {
      method: "POST",
      headers: {
        Authorization: `Bearer ${keyB}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        Origin: "http://inspector.test",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "inspector", version: "1" },
        },
      }),
    });
    expect(allowed.status).toBe(200);
    expect(((await allowed.json()) as any).result.serverInfo.name).toBe(
      "arbor",
    );
  });
});

describe("MCP over createApp() on SQLite, without auth", () => {
  const folder = mkdtempSync(join(tmpdir(), "arbor-mcp-"));
  const database = openSqlite(join(folder, "memory.db"));
  const manager = configured(SessionManager.create(database));
  // Without keys only loopback Host names are served unless named: this test's host is.
  const app = createApp({
    manager,
    mcp: mcpEndpoint({ tokenBudget: 600 }),
    hosts: ["arbor.test"],
  });
  let client: Client;

  beforeAll(async () => {
    await seedMemory(manager);
    client = await connectHttp(`${URL_BASE}/mcp`, { fetch: appFetch(app) });
  });
  afterAll(async () => {
    await client?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("keeps answers inside a configured token budget", async () => {
    const page = await call(client, "read_conversation", {
      sessionId: "long-chat",
      limit: 100,
    });
    const tokens = estimateStringTokensMultilingual(
      JSON.stringify(page.structuredContent),
    );
    expect(tokens).toBeLessThanOrEqual(600);
    expect(page.structuredContent.messages.length).toBeGreaterThanOrEqual(1);
    const sessions = await ok(client, "list_sessions", { limit: 100 });
    expect(sessions.sessions.length).toBeLessThan(29);
    expect(sessions.nextCursor).toEqual(expect.any(String));
  });

  it("sees every session without auth, and writes notes to arbor-notes", async () => {
    expect(
      (await ok(client, "remember", { text: "Unowned note" })).sessionId,
    ).toBe("arbor-notes");
    expect(await manager.getOwner("arbor-notes")).toBeNull();
  });

  it("reports storage failures as isError results, and keeps serving", async () => {
    database.close();
    const broken = await failure(client, "search_memory", {
      query: "launch budget",
    });
    expect(broken.code).toBe("STORAGE_ERROR");
    expect(broken.message).toContain("The store failed");
    expect((await client.listTools()).tools.length).toBe(8);
  });
});
