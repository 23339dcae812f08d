// MCP inside real workerd (miniflare): a Durable Object whose `fetch` is createApp() with
// `mcp: mcpEndpoint()` over `SessionManager.create(this)` (the object's own SQLite) and a
// SqlApiKeyStore. The SDK's Client in this process talks Streamable HTTP to it and runs the
// shared cases, then checks tenant isolation. The worker is bundled from the sources with the
// MCP SDK inlined, as a Worker bundler does.
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker } from "../providers/support/bundle-worker.js";
import { connectHttp } from "./support/http-client.js";
import { mcpCases, ok } from "./support/suite.js";

const source = (path: string) =>
  JSON.stringify(fileURLToPath(new URL(path, import.meta.url)));

const WORKER = `
import { DurableObject } from "cloudflare:workers";
import { createApp, SqlApiKeyStore } from ${source("../../src/server/index.ts")};
import { mcpEndpoint } from ${source("../../src/mcp/index.ts")};
import { SessionManager } from ${source("../../src/session/index.ts")};
import { seedMemory } from ${source("./support/fixtures.ts")};

export class ArborApi extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.storage = ctx.storage.sql;
    this.keys = new SqlApiKeyStore(this);
    this.manager = SessionManager.create(this)
      .withContext("memory", { description: "Facts", maxTokens: 2000 })
      .withCachedPrompt();
    this.app = createApp({ manager: this.manager, auth: this.keys, mcp: mcpEndpoint() });
  }
  sql(strings, ...values) { return [...this.storage.exec(strings.join("?"), ...values)]; }

  async fetch(request) {
    const url = new URL(request.url);
    // Test-only: keys and the fixtures are set up by the operator, not over the API.
    if (url.pathname === "/__test/key") {
      const { key } = await this.keys.create(url.searchParams.get("tenant"));
      return Response.json({ key });
    }
    if (url.pathname === "/__test/seed") {
      await seedMemory(this.manager, url.searchParams.get("tenant"));
      return Response.json({ seeded: true });
    }
    return this.app.fetch(request);
  }
}

export default {
  fetch(request, env) {
    return env.API.get(env.API.idFromName("one")).fetch(request);
  },
};
`;

let worker: Miniflare | undefined;
const keys: Record<string, string> = {};
let client: Client | undefined;
let other: Client | undefined;

/** fetch for the SDK's transport, answered by the worker. */
const workerFetch = (async (
  input: string | URL | Request,
  init?: RequestInit,
) => {
  const request = new Request(input, init);
  const response = await worker!.dispatchFetch(request.url, {
    method: request.method,
    headers: Object.fromEntries(request.headers),
    body: request.method === "GET" ? undefined : await request.text(),
  });
  return new Response(await response.text(), {
    status: response.status,
    headers: Object.fromEntries(response.headers),
  });
}) as typeof fetch;

beforeAll(async () => {
  worker = new Miniflare({
    modules: true,
    script: await bundleWorker({ source: WORKER }),
    compatibilityDate: "2025-01-01",
    compatibilityFlags: ["nodejs_compat"],
    durableObjects: { API: { className: "ArborApi", useSQLite: true } },
  });
  await worker.ready;
  for (const tenant of ["a", "b"]) {
    const response = await worker.dispatchFetch(
      `http://api/__test/key?tenant=${tenant}`,
    );
    keys[tenant] = ((await response.json()) as { key: string }).key;
  }
  await (await worker.dispatchFetch("http://api/__test/seed?tenant=a")).text();
  client = await connectHttp("http://api/mcp", {
    key: keys.a!,
    fetch: workerFetch,
  });
  other = await connectHttp("http://api/mcp", {
    key: keys.b!,
    fetch: workerFetch,
  });
}, 120_000);
afterAll(async () => {
  await client?.close();
  await other?.close();
  await worker?.dispose();
});

describe("MCP in workerd (Durable Object SQLite, stateless Streamable HTTP)", () => {
  mcpCases({ client: () => client!, notesId: "arbor-notes-a" });

  it("keeps tenants apart: another tenant's ids are not found", async () => {
    expect((await ok(other!, "list_sessions", {})).sessions).toEqual([]);
    const read = await other!.callTool({
      name: "read_conversation",
      arguments: { sessionId: "launch" },
    });
    expect(read.isError).toBe(true);
    expect(JSON.stringify(read.content)).toContain("SESSION_NOT_FOUND");
    expect((await ok(other!, "remember", { text: "b's note" })).sessionId).toBe(
      "arbor-notes-b",
    );
  });
});

describe("arbor-memory/server without the mcp option", () => {
  it("bundles nothing of the MCP SDK", async () => {
    const bundled = await bundleWorker({
      source: `export { createApp } from ${source("../../src/server/index.ts")};`,
    });
    expect(bundled).toContain("openapi");
    expect(bundled).not.toMatch(
      /modelcontextprotocol|StreamableHTTP|LATEST_PROTOCOL_VERSION/,
    );
  });
});
