// Search modes over HTTP (docs/search.md): mode, scope and leafId on the session search route,
// mode on the cross-session route, prefix on both, explained results in the declared schema, and the errors:
// 501 NOT_SUPPORTED for semantic search without embeddings, 400 for an unknown mode. The
// manager embeds with the fake deterministic embedder.
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import { fakeEmbedder } from "../../src/testing/index.js";
import { client } from "./support/client.js";

const text = (id: string, role: "user" | "assistant", body: string) => ({
  id,
  role,
  parts: [{ type: "text", text: body }],
});

async function seeded(manager: SessionManager): Promise<string> {
  const { id } = await manager.create("modes");
  const session = manager.getSession(id);
  await session.appendMessage(text("u1", "user", "Planning the move"));
  await session.appendMessage(text("old", "assistant", "We take the car"));
  await session.appendMessage(
    text("new", "assistant", "The truck it is"),
    "u1",
  );
  await manager.flushEmbeddings();
  return id;
}

describe("search modes over HTTP (fake embedder)", () => {
  it("semantic, hybrid and branch-scoped search, explained", async () => {
    const manager = SessionManager.inMemory().withEmbeddings(fakeEmbedder());
    const call = client(createApp({ manager }));
    const id = await seeded(manager);
    const session = await call(
      "GET",
      `/v1/sessions/${id}/search?q=vehicle&mode=semantic`,
    );
    expect(session.status).toBe(200);
    expect(session.body.results.map((r: any) => r.id).sort()).toEqual([
      "new",
      "old",
    ]);
    expect(session.body.results[0]).toMatchObject({
      kind: "message",
      matched: { text: false, semantic: true },
    });
    const branch = await call(
      "GET",
      `/v1/sessions/${id}/search?q=vehicle&scope=branch`,
    );
    expect(branch.body.results.map((r: any) => r.id)).toEqual(["new"]);
    const other = await call(
      "GET",
      `/v1/sessions/${id}/search?q=vehicle&scope=branch&leafId=old`,
    );
    expect(other.body.results.map((r: any) => r.id)).toEqual(["old"]);
    const across = await call("GET", "/v1/search?q=vehicle&mode=hybrid");
    expect(across.body.results.map((r: any) => r.sessionId)).toEqual([id, id]);
    const words = await call("GET", "/v1/search?q=car&mode=text");
    expect(words.body.results).toMatchObject([
      { id: "old", snippet: "We take the «car»", onActiveBranch: false },
    ]);
  });

  it("501 NOT_SUPPORTED without embeddings, 400 for an unknown mode, old results by default", async () => {
    const manager = SessionManager.inMemory();
    const call = client(createApp({ manager }));
    const { id } = await manager.create("plain");
    await manager.getSession(id).appendMessage(text("u1", "user", "car"));
    const semantic = await call(
      "GET",
      `/v1/sessions/${id}/search?q=car&mode=semantic`,
    );
    expect(semantic.status).toBe(501);
    expect(semantic.body.error.code).toBe("NOT_SUPPORTED");
    // A session that does not exist is a 404 first, whatever the mode.
    const elsewhere = await call(
      "GET",
      `/v1/sessions/no-such-session/search?q=car&mode=semantic`,
    );
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([
      404,
      "SESSION_NOT_FOUND",
    ]);
    const unknown = await call("GET", `/v1/search?q=car&mode=fuzzy`);
    expect(unknown.status).toBe(400);
    const plain = await call("GET", `/v1/sessions/${id}/search?q=car`);
    expect(Object.keys(plain.body.results[0]).sort()).toEqual(
      Object.keys(plain.body.results[0])
        .filter((key) => ["id", "role", "content", "createdAt"].includes(key))
        .sort(),
    );
  });

  it("prefix=last matches the last term as the start of a word on both routes; 400 for another value", async () => {
    const manager = SessionManager.inMemory();
    const call = client(createApp({ manager }));
    const { id } = await manager.create("prefix");
    await manager.appendAll(id, [
      text("u1", "user", "the launch budget is approved"),
      text("a1", "assistant", "lunch is at noon"),
    ]);
    const whole = await call("GET", `/v1/sessions/${id}/search?q=budg`);
    expect(whole.body.results).toEqual([]);
    for (const path of [
      `/v1/sessions/${id}/search?q=launch%20budg&prefix=last&match=all`,
      `/v1/search?q=laun%20budg&prefix=all&match=all`,
    ]) {
      const found = await call("GET", path);
      expect([found.status, found.body.results.map((r: any) => r.id)]).toEqual([
        200,
        ["u1"],
      ]);
    }
    const none = await call("GET", `/v1/search?q=budg&prefix=none`);
    expect(none.body.results).toEqual([]);
    const bad = await call("GET", `/v1/search?q=budg&prefix=first`);
    expect(bad.status).toBe(400);
  });
});
