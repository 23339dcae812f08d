// The fourth backend served as any backend is: `SessionManager.create(backend)`, `createApp()`
// with the backend's own API keys (`backend.apiKeys`) as `auth`, and MCP over that app's
// Streamable HTTP endpoint with the MCP SDK's own client, running the MCP cases every built-in
// backend runs. Nothing outside test/fourth-backend knows this store exists.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpEndpoint } from "arbor-memory/mcp";
import { createApp } from "arbor-memory/server";
import { fakeEmbedder } from "arbor-memory/testing";
import { SessionManager, type SessionMessage } from "arbor-memory/session";
import { seedMemory, withMemoryBlock } from "../mcp/support/fixtures.js";
import { connectHttp } from "../mcp/support/http-client.js";
import { mcpCases } from "../mcp/support/suite.js";
import { kvBackend } from "./kv-backend.js";
import { KvStore } from "./kv-store.js";

const URL_BASE = "http://arbor.test";

/** A fetch that calls the app in this process. */
function appFetch(app: {
  fetch: (request: Request) => Response | Promise<Response>;
}): typeof fetch {
  return (input: string | URL | Request, init?: RequestInit) =>
    Promise.resolve(app.fetch(new Request(input, init)));
}

const text = (id: string, words: string): SessionMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text: words }],
});

describe("the fourth backend under a SessionManager", () => {
  it("creates, appends, branches, searches, watches and erases through the manager", async () => {
    const store = new KvStore();
    const manager = SessionManager.create(kvBackend(store));
    const { id } = await manager.create("Trip", { ownerId: "acme" });
    const seen: string[] = [];
    const stop = manager.watch((event) => {
      seen.push(`${event.type}:${event.ids.join(",")}`);
    });
    await manager.append(id, text("u1", "book the Lisbon flight"));
    await manager.append(id, text("u2", "and a hotel near the river"));
    await manager
      .getSession(id)
      .appendMessage(text("u3", "rather Porto"), "u1");
    expect((await manager.getHistory(id)).map((m) => m.id)).toEqual([
      "u1",
      "u3",
    ]);
    const hits = await manager.search("Lisbon flight", { ownerId: "acme" });
    expect(hits.map((hit) => [hit.sessionId, hit.id])).toEqual([[id, "u1"]]);
    expect(await manager.search("Lisbon", { ownerId: "globex" })).toEqual([]);
    await expect.poll(() => seen.length).toBeGreaterThanOrEqual(3);
    stop();
    expect(seen.slice(0, 3)).toEqual(["append:u1", "append:u2", "append:u3"]);
    const receipt = await manager.erase({ sessionId: id });
    expect(receipt).toMatchObject({ sessions: 1, messages: 3 });
    expect(store.dump()).not.toContain("Lisbon");
    expect(await manager.search("Lisbon")).toEqual([]);
  });
});

describe("the fourth backend's embeddings", () => {
  it("give semantic recall (fake embedder), and an erase takes the vectors with the session", async () => {
    const manager =
      SessionManager.create(kvBackend()).withEmbeddings(fakeEmbedder());
    const { id } = await manager.create("Notes");
    await manager.append(id, text("m1", "the launch budget is 40k"));
    await manager.append(id, text("m2", "the venue is booked"));
    await manager.flushEmbeddings();
    const hits = await manager.search("launch budget", { mode: "semantic" });
    expect(hits[0]?.id).toBe("m1");
    const receipt = await manager.erase({ sessionId: id });
    expect(receipt.vectors).toBe(2);
    expect(await manager.removeEmbeddings()).toEqual({ vectors: 0, queued: 0 });
  });
});

describe("the fourth backend's search index settings", () => {
  it("makes tool outputs searchable when configured, for sessions of any manager over the store", async () => {
    const backend = kvBackend();
    const manager = SessionManager.create(backend);
    const { id } = await manager.create("Build");
    await manager.append(id, {
      id: "a1",
      role: "assistant",
      parts: [
        {
          type: "tool-run",
          toolCallId: "c1",
          state: "output-available",
          input: { command: "make" },
          output: "linker error: undefined symbol zlibInflate",
        },
      ],
    });
    expect(await manager.search("zlibInflate")).toEqual([]);
    expect(await manager.configureSearchIndex({ toolOutputs: true })).toEqual({
      settings: { toolOutputs: true },
      changed: true,
      reindexed: 1,
    });
    const other = SessionManager.create(backend);
    expect((await other.search("zlibInflate")).map((hit) => hit.id)).toEqual([
      "a1",
    ]);
    expect(await backend.searchIndex!.settings()).toEqual({
      toolOutputs: true,
    });
  });
});

describe("the fourth backend over HTTP, with its own API keys", () => {
  const backend = kvBackend();
  const manager = SessionManager.create(backend);
  const app = createApp({ manager, auth: backend.apiKeys! });
  let acme: Record<string, string> = {};
  let globex: Record<string, string> = {};

  beforeAll(async () => {
    const json = { "Content-Type": "application/json" };
    acme = {
      ...json,
      Authorization: `Bearer ${(await backend.apiKeys!.create("acme")).key}`,
    };
    globex = {
      ...json,
      Authorization: `Bearer ${(await backend.apiKeys!.create("globex")).key}`,
    };
  });

  it("creates a session, appends, reads the history and searches, as the key's tenant", async () => {
    const created = await app.request("/v1/sessions", {
      method: "POST",
      headers: acme,
      body: JSON.stringify({ name: "Support chat", ownerId: "someone-else" }),
    });
    expect(created.status).toBe(201);
    const session = (await created.json()) as { id: string; ownerId: string };
    expect(session.ownerId).toBe("acme");
    for (const [id, words] of [
      ["u1", "the invoice for March is missing"],
      ["a1", "I resent the March invoice"],
    ]) {
      const appended = await app.request(
        `/v1/sessions/${session.id}/messages`,
        {
          method: "POST",
          headers: acme,
          body: JSON.stringify({ message: text(id!, words!) }),
        },
      );
      expect(appended.status).toBe(201);
    }
    const history = await app.request(`/v1/sessions/${session.id}/history`, {
      headers: acme,
    });
    expect(history.status).toBe(200);
    const body = (await history.json()) as {
      messages: SessionMessage[];
      leafId: string;
    };
    expect(body.messages.map((m) => m.id)).toEqual(["u1", "a1"]);
    expect(body.leafId).toBe("a1");
    const search = await app.request("/v1/search?q=invoice", {
      headers: acme,
    });
    expect(search.status).toBe(200);
    const { results } = (await search.json()) as {
      results: Array<{ id: string; sessionId: string; sessionName: string }>;
    };
    expect(results.map((hit) => hit.id).sort()).toEqual(["a1", "u1"]);
    expect(results[0]).toMatchObject({
      sessionId: session.id,
      sessionName: "Support chat",
    });

    // Another tenant's key neither sees nor finds it; no key is refused.
    const probe = await app.request(`/v1/sessions/${session.id}`, {
      headers: globex,
    });
    expect(probe.status).toBe(404);
    const theirs = await app.request("/v1/search?q=invoice", {
      headers: globex,
    });
    expect(((await theirs.json()) as { results: unknown[] }).results).toEqual(
      [],
    );
    expect((await app.request("/v1/sessions")).status).toBe(401);
  });

  it("refuses a revoked key", async () => {
    const { key, record } = await backend.apiKeys!.create("acme");
    const headers = { Authorization: `Bearer ${key}` };
    expect((await app.request("/v1/sessions", { headers })).status).toBe(200);
    expect(await backend.apiKeys!.revoke(record.id)).toBe(true);
    expect((await app.request("/v1/sessions", { headers })).status).toBe(401);
  });
});

describe("the fourth backend over MCP (Streamable HTTP, the SDK's client)", () => {
  let client: Client;
  const backend = kvBackend();
  const manager = withMemoryBlock(SessionManager.create(backend));
  const app = createApp({
    manager,
    auth: backend.apiKeys!,
    mcp: mcpEndpoint(),
  });

  beforeAll(async () => {
    await seedMemory(manager, "acme");
    const { key } = await backend.apiKeys!.create("acme");
    client = await connectHttp(`${URL_BASE}/mcp`, {
      key,
      fetch: appFetch(app),
    });
  });
  afterAll(async () => {
    await client?.close();
  });

  mcpCases({ client: () => client, notesId: "arbor-notes-acme" });
});
