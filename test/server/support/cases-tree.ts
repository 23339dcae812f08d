// The tree's reads and overlays: history by leaf, recent history, the tree view, switching the
// active leaf, compaction overlays (added, removed, made by the manager's function), and search.
import { expect, it } from "vitest";
import { createApp } from "../../../src/server/index.js";
import type { Call } from "./client.js";
import type { WithStore } from "./api-suite.js";
import { client, text } from "./client.js";

/** A session with u1 → a1 → {u2 → a2, u3}; u3 is the latest leaf. */
async function branchy(call: Call): Promise<string> {
  const { id } = (
    await call("POST", "/v1/sessions", { json: { name: "Branchy" } })
  ).body;
  const add = (mid: string, words: string, parentId?: string) =>
    call("POST", `/v1/sessions/${id}/messages`, {
      json: { message: text(mid, words), ...(parentId ? { parentId } : {}) },
    });
  await add("u1", "Plan a trip to Lisbon");
  await add("a1", "Sure, when?");
  await add("u2", "In May");
  await add("a2", "May is lovely in Lisbon");
  await add("u3", "Actually Porto", "a1");
  return id;
}

export function treeCases(withStore: WithStore): void {
  it("reads history by leaf, recent history and the tree", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const id = await branchy(call);
      const ids = (answer: any) => answer.body.messages.map((m: any) => m.id);
      expect(ids(await call("GET", `/v1/sessions/${id}/history`))).toEqual([
        "u1",
        "a1",
        "u3",
      ]);
      const byLeaf = await call("GET", `/v1/sessions/${id}/history?leafId=a2`);
      expect(byLeaf.body.leafId).toBe("a2");
      expect(ids(byLeaf)).toEqual(["u1", "a1", "u2", "a2"]);
      const unknown = await call("GET", `/v1/sessions/${id}/history?leafId=zz`);
      expect(unknown.status).toBe(404);

      const recent = await call(
        "GET",
        `/v1/sessions/${id}/history/recent?maxBytes=80&leafId=a2`,
      );
      expect(recent.status).toBe(200);
      expect(recent.body.truncated).toBe(true);
      expect(ids(recent).at(-1)).toBe("a2");
      expect(ids(recent).length).toBeLessThan(4);
      const all = await call(
        "GET",
        `/v1/sessions/${id}/history/recent?maxBytes=100000`,
      );
      expect(all.body).toMatchObject({ truncated: false });
      expect(ids(all)).toEqual(["u1", "a1", "u3"]);

      const tree = await call("GET", `/v1/sessions/${id}/tree`);
      expect(tree.body.activeLeafId).toBe("u3");
      expect(tree.body.nodes.map((n: any) => [n.id, n.parentId])).toEqual([
        ["u1", null],
        ["a1", "u1"],
        ["u2", "a1"],
        ["a2", "u2"],
        ["u3", "a1"],
      ]);
      expect(tree.body.nodes[0]).toMatchObject({
        role: "user",
        preview: "Plan a trip to Lisbon",
      });
      expect(tree.body.nodes[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    }));

  it("previews at most 120 characters of text", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Long" } })
      ).body;
      await call("POST", `/v1/sessions/${id}/messages`, {
        json: { message: text("u1", "x".repeat(500)) },
      });
      const tree = await call("GET", `/v1/sessions/${id}/tree`);
      expect(tree.body.nodes[0].preview).toBe("x".repeat(120));
    }));

  it("switches the active leaf", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const id = await branchy(call);
      expect(
        (await call("GET", `/v1/sessions/${id}/leaf`)).body.message.id,
      ).toBe("u3");
      const switched = await call("PUT", `/v1/sessions/${id}/leaf`, {
        json: { leafId: "a2" },
      });
      expect(switched.body).toEqual({ leafId: "a2" });
      expect(
        (await call("GET", `/v1/sessions/${id}/leaf`)).body.message.id,
      ).toBe("a2");
      await call("POST", `/v1/sessions/${id}/messages`, {
        json: { message: text("u4", "Next") },
      });
      const history = await call("GET", `/v1/sessions/${id}/history`);
      expect(history.body.messages.map((m: any) => m.id)).toEqual([
        "u1",
        "a1",
        "u2",
        "a2",
        "u4",
      ]);
      expect(
        (
          await call("PUT", `/v1/sessions/${id}/leaf`, {
            json: { leafId: "zz" },
          })
        ).status,
      ).toBe(404);
      const empty = (
        await call("POST", "/v1/sessions", { json: { name: "Empty" } })
      ).body.id;
      expect((await call("GET", `/v1/sessions/${empty}/leaf`)).body).toEqual({
        message: null,
      });
      expect((await call("GET", `/v1/sessions/${empty}/history`)).body).toEqual(
        { messages: [], leafId: null },
      );
    }));

  it("adds, lists and removes compaction overlays", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const id = await branchy(call);
      const added = await call("POST", `/v1/sessions/${id}/compactions`, {
        json: {
          summary: "Talked about a trip",
          fromMessageId: "u1",
          toMessageId: "a1",
        },
      });
      expect(added.status).toBe(201);
      expect(added.body).toMatchObject({
        fromMessageId: "u1",
        toMessageId: "a1",
      });
      const history = await call("GET", `/v1/sessions/${id}/history`);
      expect(JSON.stringify(history.body.messages)).toContain(
        "Talked about a trip",
      );
      expect(history.body.messages.map((m: any) => m.id)).not.toContain("u1");
      const list = await call("GET", `/v1/sessions/${id}/compactions`);
      expect(list.body.compactions.map((c: any) => c.id)).toEqual([
        added.body.id,
      ]);
      const tree = await call("GET", `/v1/sessions/${id}/tree`);
      expect(tree.body.compactions).toHaveLength(1);
      const removed = await call(
        "DELETE",
        `/v1/sessions/${id}/compactions/${added.body.id}`,
      );
      expect(removed.status).toBe(204);
      expect(
        (
          await call(
            "DELETE",
            `/v1/sessions/${id}/compactions/${added.body.id}`,
          )
        ).status,
      ).toBe(404);
      const back = await call("GET", `/v1/sessions/${id}/history`);
      expect(back.body.messages.map((m: any) => m.id)).toEqual([
        "u1",
        "a1",
        "u3",
      ]);
      const bad = await call("POST", `/v1/sessions/${id}/compactions`, {
        json: { summary: "x", fromMessageId: "nope", toMessageId: "a1" },
      });
      expect(bad.status).toBe(404);
    }));

  it("compacts with a fake summarizer (no LLM), or answers 409 without one", () =>
    withStore(async (store) => {
      const plain = client(createApp({ manager: store.manager() }));
      const id = await branchy(plain);
      const refused = await plain("POST", `/v1/sessions/${id}/compact`, {
        json: {},
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe("COMPACTION_NOT_CONFIGURED");

      // A fake summarizer (no LLM): it always summarizes the first two messages.
      const call = client(
        createApp({
          manager: store.manager(),
          compaction: async (messages) => ({
            fromMessageId: messages[0]!.id,
            toMessageId: messages[1]!.id,
            summary: "fake summary",
          }),
        }),
      );
      const done = await call("POST", `/v1/sessions/${id}/compact`);
      expect(done.status).toBe(200);
      expect(done.body.compaction).toMatchObject({
        summary: "fake summary",
        fromMessageId: "u1",
        toMessageId: "a1",
      });
    }));

  it("searches one session and across sessions", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const first = await branchy(call);
      const second = await branchy(call);
      const inOne = await call("GET", `/v1/sessions/${first}/search?q=lisbon`);
      expect(inOne.body.results.map((r: any) => r.id).sort()).toEqual([
        "a2",
        "u1",
      ]);
      const across = await call("GET", "/v1/search?q=porto");
      expect(across.body.results.map((r: any) => r.sessionId).sort()).toEqual(
        [first, second].sort(),
      );
      const filtered = await call(
        "GET",
        `/v1/search?q=porto&sessionId=${second}`,
      );
      expect(filtered.body.results.map((r: any) => r.sessionId)).toEqual([
        second,
      ]);
      const limited = await call("GET", "/v1/search?q=lisbon&limit=1");
      expect(limited.body.results).toHaveLength(1);
      // No hits: [] in a session that exists, 404 in one that does not (any more).
      const none = await call("GET", `/v1/sessions/${first}/search?q=zanzibar`);
      expect([none.status, none.body.results]).toEqual([200, []]);
      expect((await call("DELETE", `/v1/sessions/${second}`)).status).toBe(204);
      for (const gone of ["no-such-session", second]) {
        const answer = await call("GET", `/v1/sessions/${gone}/search?q=porto`);
        expect([answer.status, answer.body.error?.code]).toEqual([
          404,
          "SESSION_NOT_FOUND",
        ]);
      }
    }));
}
