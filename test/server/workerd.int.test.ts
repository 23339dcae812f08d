// The HTTP API inside real workerd (miniflare): a Durable Object whose `fetch` is `createApp()`
// over `SessionManager.create(this)` and a `SqlApiKeyStore` on the object's own SQLite
// (`ctx.storage.sql`). A representative subset of requests: auth, writes, reads, search, blocks,
// export and import, tenant isolation, malformed input, the OpenAPI document and the event stream.
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker } from "../providers/support/bundle-worker.js";

const SERVER = fileURLToPath(
  new URL("../../src/server/index.ts", import.meta.url),
);
const SESSION = fileURLToPath(
  new URL("../../src/session/index.ts", import.meta.url),
);

const WORKER = `
import { DurableObject } from "cloudflare:workers";
import { createApp, SqlApiKeyStore } from ${JSON.stringify(SERVER)};
import { SessionManager } from ${JSON.stringify(SESSION)};

export class ArborApi extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.storage = ctx.storage.sql;
    this.keys = new SqlApiKeyStore(this);
    const manager = SessionManager.create(this).withContext("memory").withCachedPrompt();
    this.app = createApp({ manager, auth: this.keys });
  }
  sql(strings, ...values) { return [...this.storage.exec(strings.join("?"), ...values)]; }

  async fetch(request) {
    const url = new URL(request.url);
    // Test-only: keys are made by the operator (the CLI), not over the API.
    if (url.pathname === "/__test/key") {
      const { key } = await this.keys.create(url.searchParams.get("tenant"));
      return Response.json({ key });
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
}, 120_000);
afterAll(() => worker?.dispose());

async function call(
  tenant: "a" | "b" | null,
  method: string,
  path: string,
  body?: unknown,
  raw?: string,
) {
  const headers: Record<string, string> = {};
  if (tenant) headers.Authorization = `Bearer ${keys[tenant]}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await worker!.dispatchFetch(`http://api${path}`, {
    method,
    headers,
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {
    status: response.status,
    body: json,
    text,
    headers: response.headers,
  };
}

const message = (id: string, text: string, role = "user") => ({
  id,
  role,
  parts: [{ type: "text", text }],
});

describe("arbor HTTP API in workerd (Durable Object SQLite)", () => {
  it("serves health and the OpenAPI document without a key, nothing else", async () => {
    expect((await call(null, "GET", "/health")).body).toEqual({ status: "ok" });
    expect((await call(null, "GET", "/openapi.json")).body.openapi).toBe(
      "3.1.0",
    );
    const denied = await call(null, "GET", "/v1/sessions");
    expect([denied.status, denied.body.error.code]).toEqual([
      401,
      "UNAUTHORIZED",
    ]);
  });

  it("writes and reads a tree, searches it, edits a block, exports and imports it", async () => {
    const created = await call("a", "POST", "/v1/sessions", { name: "Trip" });
    expect(created.status).toBe(201);
    expect(created.body.ownerId).toBe("a");
    const id = created.body.id;
    await call("a", "POST", `/v1/sessions/${id}/messages`, {
      message: message("u1", "Plan Lisbon"),
    });
    await call("a", "POST", `/v1/sessions/${id}/messages`, {
      message: message("a1", "Sure", "assistant"),
    });
    await call("a", "POST", `/v1/sessions/${id}/messages`, {
      message: message("a2", "Porto?", "assistant"),
      parentId: "u1",
    });
    const history = await call(
      "a",
      "GET",
      `/v1/sessions/${id}/history?leafId=a1`,
    );
    expect(history.body.messages.map((m: any) => m.id)).toEqual(["u1", "a1"]);
    const tree = await call("a", "GET", `/v1/sessions/${id}/tree`);
    expect(tree.body.nodes.map((n: any) => n.id)).toEqual(["u1", "a1", "a2"]);
    expect(tree.body.activeLeafId).toBe("a2");
    expect(
      (await call("a", "GET", `/v1/sessions/${id}`)).body.messageCount,
    ).toBe(3);
    const found = await call("a", "GET", "/v1/search?q=lisbon");
    expect(found.body.results.map((r: any) => r.id)).toEqual(["u1"]);
    const block = await call("a", "PUT", `/v1/sessions/${id}/blocks/memory`, {
      content: "Likes trains",
    });
    expect(block.body.content).toBe("Likes trains");
    const exported = await call(
      "a",
      "GET",
      `/v1/sessions/${id}/export?format=jsonl`,
    );
    expect(exported.status).toBe(200);
    const imported = await call(
      "a",
      "POST",
      "/v1/import",
      undefined,
      exported.text,
    );
    expect(imported.status).toBe(201);
    expect(imported.body.sessions[0]).toMatchObject({
      ownerId: "a",
      messageCount: 3,
    });
  });

  it("answers 20 concurrent POSTs of one id with one 201, then 200 for the same body and 409 for another", async () => {
    const id = (await call("a", "POST", "/v1/sessions", { name: "Race" })).body
      .id;
    const path = `/v1/sessions/${id}/messages`;
    const count = (answers: Array<{ status: number }>) =>
      answers.reduce<Record<number, number>>((counts, { status }) => {
        counts[status] = (counts[status] ?? 0) + 1;
        return counts;
      }, {});
    const same = await Promise.all(
      Array.from({ length: 20 }, () =>
        call("a", "POST", path, { message: message("u1", "Hi") }),
      ),
    );
    expect(count(same)).toEqual({ 201: 1, 200: 19 });
    for (const answer of same)
      expect(answer.body.message).toMatchObject(message("u1", "Hi"));
    const different = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        call("a", "POST", path, { message: message("u2", `Body ${index}`) }),
      ),
    );
    expect(count(different)).toEqual({ 201: 1, 409: 19 });
    const created = different.find((answer) => answer.status === 201)!;
    expect((await call("a", "GET", `${path}/u2`)).body.message).toEqual(
      created.body.message,
    );
    expect(
      (await call("a", "GET", `/v1/sessions/${id}`)).body.messageCount,
    ).toBe(2);
  });

  it("answers another tenant's session like a missing one", async () => {
    const id = (await call("a", "POST", "/v1/sessions", { name: "Private" }))
      .body.id;
    await call("a", "POST", `/v1/sessions/${id}/messages`, {
      message: message("u1", "secret"),
    });
    const missing = crypto.randomUUID();
    for (const [method, path, body] of [
      ["GET", "/v1/sessions/{id}", undefined],
      ["GET", "/v1/sessions/{id}/history", undefined],
      [
        "POST",
        "/v1/sessions/{id}/messages",
        { message: message("x", "intrusion") },
      ],
      ["DELETE", "/v1/sessions/{id}", undefined],
      ["GET", "/v1/sessions/{id}/events", undefined],
    ] as const) {
      const foreign = await call("b", method, path.replace("{id}", id), body);
      const absent = await call(
        "b",
        method,
        path.replace("{id}", missing),
        body,
      );
      expect(foreign.status, `${method} ${path}`).toBe(404);
      expect(foreign.text.replaceAll(id, "<id>")).toBe(
        absent.text.replaceAll(missing, "<id>"),
      );
    }
    expect(
      (await call("b", "GET", "/v1/sessions")).body.sessions.map(
        (s: any) => s.id,
      ),
    ).not.toContain(id);
    expect(
      (await call("a", "GET", `/v1/sessions/${id}/history`)).body.messages.map(
        (m: any) => m.id,
      ),
    ).toEqual(["u1"]);
  });

  it("answers malformed input with 4xx errors", async () => {
    const broken = await call("a", "POST", "/v1/sessions", undefined, "{");
    expect(broken.status).toBe(415);
    const badJson = await worker!.dispatchFetch("http://api/v1/sessions", {
      method: "POST",
      headers: {
        Authorization: `Bearer ${keys.a}`,
        "Content-Type": "application/json",
      },
      body: "{",
    });
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as any).error.code).toBe("INVALID_JSON");
    const invalid = await call("a", "POST", "/v1/sessions", { name: 5 });
    expect([invalid.status, invalid.body.error.code]).toEqual([
      400,
      "INVALID_REQUEST",
    ]);
    expect((await call("a", "GET", "/v1/sessions?limit=-1")).status).toBe(400);
    expect((await call("a", "GET", "/v1/nowhere")).status).toBe(404);
  });

  it("streams change events", async () => {
    const id = (await call("a", "POST", "/v1/sessions", { name: "Live" })).body
      .id;
    const response = await worker!.dispatchFetch(
      `http://api/v1/sessions/${id}/events`,
      {
        headers: { Authorization: `Bearer ${keys.a}` },
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let received = "";
    const until = async (needle: string) => {
      while (!received.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${needle}: ${received}`);
        received += decoder.decode(value, { stream: true });
      }
    };
    await until("event: ready");
    await call("a", "POST", `/v1/sessions/${id}/messages`, {
      message: message("u1", "ping"),
    });
    await until('"ids":["u1"]');
    expect(received).toContain("event: change");
    await reader.cancel();
  });
});
