// API keys and tenants: 401 without a valid key, the tenant as owner of what it creates, lists,
// searches and imports; and the error contract: 413, 500 without a stack, no secret in logs.
import { expect, it } from "vitest";
import { createApp } from "../../../src/server/index.js";
import type { SessionManager } from "../../../src/session/index.js";
import type { WithStore } from "./api-suite.js";
import { client, text } from "./client.js";

export function authCases(withStore: WithStore): void {
  it("needs a valid key on every /v1 route, not on /health or /openapi.json", () =>
    withStore(async (store) => {
      const keys = store.keys();
      const { key } = await keys.create("tenant-a");
      const app = createApp({ manager: store.manager(), auth: keys });
      const anonymous = client(app);
      for (const path of [
        "/v1/sessions",
        "/v1/search?q=x",
        "/v1/sessions/x",
        "/v1/nothing",
      ]) {
        const answer = await anonymous("GET", path);
        expect(answer.status, path).toBe(401);
        expect(answer.body.error.code).toBe("UNAUTHORIZED");
        expect(answer.headers.get("www-authenticate")).toContain("Bearer");
      }
      for (const header of [
        "Bearer arbor_sk_wrong",
        "Basic abc",
        `bearer${key}`,
        key,
      ]) {
        const answer = await anonymous("GET", "/v1/sessions", {
          headers: { Authorization: header },
        });
        expect(answer.status, header).toBe(401);
        expect(answer.text).not.toContain(key);
      }
      expect((await anonymous("GET", "/health")).body).toEqual({
        status: "ok",
      });
      expect((await anonymous("GET", "/openapi.json")).status).toBe(200);
      expect((await client(app, key)("GET", "/v1/sessions")).status).toBe(200);
      const records = await keys.list();
      expect(JSON.stringify(records)).not.toContain(key.slice(9));
      await keys.revoke(records.find((r) => r.tenant === "tenant-a")!.id);
      expect((await client(app, key)("GET", "/v1/sessions")).status).toBe(401);
    }));

  it("binds sessions to the tenant: create, list, search, import, fork", () =>
    withStore(async (store) => {
      const keys = store.keys();
      const a = await keys.create("tenant-a");
      const b = await keys.create("tenant-b");
      const app = createApp({ manager: store.manager(), auth: keys });
      const callA = client(app, a.key);
      const callB = client(app, b.key);
      const created = await callA("POST", "/v1/sessions", {
        json: { name: "A's", ownerId: "tenant-b" },
      });
      expect(created.body.ownerId).toBe("tenant-a");
      const id = created.body.id;
      await callA("POST", `/v1/sessions/${id}/messages`, {
        json: { message: text("u1", "secret lisbon") },
      });
      await callB("POST", "/v1/sessions", { json: { name: "B's" } });

      const listA = await callA("GET", "/v1/sessions?owner=tenant-b");
      expect(listA.body.sessions.map((s: any) => s.name)).toEqual(["A's"]);
      const listB = await callB("GET", "/v1/sessions");
      expect(listB.body.sessions.map((s: any) => s.name)).toEqual(["B's"]);
      expect((await callB("GET", "/v1/search?q=lisbon")).body.results).toEqual(
        [],
      );
      expect(
        (await callB("GET", `/v1/search?q=lisbon&sessionId=${id}`)).body
          .results,
      ).toEqual([]);
      expect(
        (await callA("GET", "/v1/search?q=lisbon")).body.results,
      ).toHaveLength(1);

      const fork = await callA("POST", `/v1/sessions/${id}/fork`, {
        json: { messageId: "u1" },
      });
      expect(fork.body.ownerId).toBe("tenant-a");
      const snapshot = (await callA("GET", `/v1/sessions/${id}/export`)).text;
      const imported = await callB("POST", "/v1/import?keepIds=true", {
        raw: snapshot,
      });
      expect(imported.status).toBe(201);
      expect(imported.body.sessions[0].ownerId).toBe("tenant-b");
      expect(imported.body.sessions[0].id).not.toBe(id);
    }));

  it("never attaches a message under another tenant's message", () =>
    withStore(async (store) => {
      const keys = store.keys();
      const a = await keys.create("tenant-a");
      const b = await keys.create("tenant-b");
      const manager = store.manager();
      const app = createApp({ manager, auth: keys });
      const callA = client(app, a.key);
      const callB = client(app, b.key);
      const idA = (await callA("POST", "/v1/sessions", { json: { name: "A" } }))
        .body.id;
      await callA("POST", `/v1/sessions/${idA}/messages`, {
        json: { message: text("secret", "A's") },
      });
      const idB = (await callB("POST", "/v1/sessions", { json: { name: "B" } }))
        .body.id;
      const answer = await callB("POST", `/v1/sessions/${idB}/messages`, {
        json: { message: text("b1", "hi"), parentId: "secret" },
      });
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe("MESSAGE_NOT_FOUND");
      expect(await manager.getSession(idB).countMessages()).toBe(0);
      expect(await manager.getBranches(idA, "secret")).toEqual([]);
    }));

  it("answers 413 over the body limit", () =>
    withStore(async (store) => {
      const call = client(
        createApp({
          manager: store.manager(),
          bodyLimit: { api: 2000, import: 4000 },
        }),
      );
      const big = await call("POST", "/v1/sessions", {
        json: { name: "x".repeat(3000) },
      });
      expect(big.status).toBe(413);
      expect(big.body.error.code).toBe("PAYLOAD_TOO_LARGE");
      expect(big.body.error.message).toBe(
        "The request body is over this route's limit of 2000 bytes",
      );
      const file = await call("POST", "/v1/import", { raw: "x".repeat(5000) });
      expect(file.status).toBe(413);
      // The import route says its limit and where larger files go.
      expect(file.body.error.message).toBe(
        "The request body is over this route's limit of 4000 bytes; import a larger file with `arbor import <file>`, which streams it with bounded memory",
      );
      const smallFile = await call("POST", "/v1/import", {
        raw: "x".repeat(3000),
      });
      expect(smallFile.status).toBe(400);
    }));

  it("hides unexpected errors behind 500 INTERNAL and logs no secret", () =>
    withStore(async (store) => {
      const keys = store.keys();
      const { key } = await keys.create("tenant-a");
      const manager = store.manager();
      const logged: string[] = [];
      const broken = Object.assign(Object.create(manager) as SessionManager, {
        listDetailedPage: async () => {
          throw new Error("database exploded at /srv/secret/path");
        },
      });
      const app = createApp({
        manager: broken,
        auth: keys,
        logError: (message, error) =>
          logged.push(`${message} ${String((error as Error).stack)}`),
      });
      const answer = await client(app, key)("GET", "/v1/sessions?limit=5");
      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({
        error: { code: "INTERNAL", message: "Internal server error" },
      });
      expect(answer.text).not.toContain("exploded");
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain("GET /v1/sessions");
      expect(logged.join()).not.toContain(key);
    }));
}
