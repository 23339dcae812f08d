// Context blocks and the system prompt over HTTP, on a manager with an auto-wired block.
import { expect, it } from "vitest";
import { createApp } from "../../../src/server/index.js";
import type { WithStore } from "./api-suite.js";
import { client } from "./client.js";

export function contextCases(withStore: WithStore): void {
  it("reads, writes, versions and reverts blocks; reads the prompt without freezing it, and refreshes it", () =>
    withStore(async (store) => {
      const manager = store
        .manager()
        .withContext("memory", { description: "Learned facts", maxTokens: 500 })
        .withCachedPrompt();
      const call = client(createApp({ manager }));
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Blocks" } })
      ).body;
      const base = `/v1/sessions/${id}`;

      const listed = await call("GET", `${base}/blocks`);
      expect(listed.body.blocks.map((b: any) => b.label)).toEqual(["memory"]);
      // A read freezes nothing; the refresh is the explicit freeze.
      const unfrozen = (await call("GET", `${base}/prompt`)).body;
      expect(unfrozen.prompt).toBe(null);
      const frozen = (await call("POST", `${base}/prompt/refresh`)).body;
      expect(frozen.prompt).toBe(unfrozen.current);

      const put = await call("PUT", `${base}/blocks/memory`, {
        json: { content: "Likes trains" },
      });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({
        label: "memory",
        content: "Likes trains",
        writable: true,
      });
      await call("PUT", `${base}/blocks/memory`, {
        json: { content: "Likes boats" },
      });
      expect((await call("GET", `${base}/blocks/memory`)).body.content).toBe(
        "Likes boats",
      );

      const versions = (await call("GET", `${base}/blocks/memory/history`)).body
        .versions;
      expect(versions.map((v: any) => [v.version, v.content])).toEqual([
        [1, "Likes trains"],
        [2, "Likes boats"],
      ]);
      const reverted = await call("POST", `${base}/blocks/memory/revert`, {
        json: { version: 1 },
      });
      expect(reverted.body.content).toBe("Likes trains");
      expect(
        (
          await call("POST", `${base}/blocks/memory/revert`, {
            json: { version: 9 },
          })
        ).status,
      ).toBe(404);

      const prompt = (await call("GET", `${base}/prompt`)).body;
      expect(prompt.prompt).not.toContain("Likes trains");
      expect(prompt.current).toContain("Likes trains");
      const refreshed = await call("POST", `${base}/prompt/refresh`);
      expect(refreshed.body.prompt).toContain("Likes trains");
      expect((await call("GET", `${base}/prompt`)).body.prompt).toBe(
        refreshed.body.prompt,
      );

      for (const [method, path, json] of [
        ["GET", `${base}/blocks/nope`, undefined],
        ["PUT", `${base}/blocks/nope`, { content: "x" }],
        ["GET", `${base}/blocks/nope/history`, undefined],
        ["POST", `${base}/blocks/nope/revert`, { version: 1 }],
      ] as const) {
        const answer = await call(method, path, json ? { json } : {});
        expect(answer.status, `${method} ${path}`).toBe(404);
        expect(answer.body.error.code).toBe("BLOCK_NOT_FOUND");
      }
      const tooLarge = await call("PUT", `${base}/blocks/memory`, {
        json: { content: "word ".repeat(5000) },
      });
      expect(tooLarge.status).toBe(400);
      expect(tooLarge.body.error.code).toBe("BLOCK_TOO_LARGE");
    }));

  it("POST /blocks creates a block stored with the session: a restarted server lists it and renders it; a retry under its key replays; bad input writes nothing", () =>
    withStore(async (store) => {
      const manager = store.manager().withContext("memory");
      const call = client(createApp({ manager }));
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Created" } })
      ).body;
      const base = `/v1/sessions/${id}`;
      const body = {
        label: "plans",
        description: "The user's plans",
        maxTokens: 200,
        content: "Trip to Lisbon in May.",
      };
      const headers = { "Idempotency-Key": "create-plans" };
      const created = await call("POST", `${base}/blocks`, {
        json: body,
        headers,
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        label: "plans",
        description: "The user's plans",
        content: "Trip to Lisbon in May.",
        maxTokens: 200,
        writable: true,
      });
      const replayed = await call("POST", `${base}/blocks`, {
        json: body,
        headers,
      });
      expect(replayed.status).toBe(201);
      expect(replayed.headers.get("idempotent-replayed")).toBe("true");
      expect(replayed.body).toEqual(created.body);

      const again = await call("POST", `${base}/blocks`, { json: body });
      expect([again.status, again.body.error.code]).toEqual([
        409,
        "BLOCK_EXISTS",
      ]);
      for (const [json, status, code] of [
        [{ label: "memory" }, 409, "BLOCK_EXISTS"],
        [{ label: "two words" }, 400, "INVALID_REQUEST"],
        [{ label: "notes", maxTokens: 0 }, 400, "INVALID_REQUEST"],
        [
          { label: "notes", maxTokens: 2, content: "many more words than two" },
          400,
          "BLOCK_TOO_LARGE",
        ],
      ] as const) {
        const answer = await call("POST", `${base}/blocks`, { json });
        expect([answer.status, answer.body.error.code], json.label).toEqual([
          status,
          code,
        ]);
      }
      const missing = await call("POST", "/v1/sessions/nope/blocks", {
        json: { label: "notes" },
      });
      expect(missing.status).toBe(404);

      // A restart: a new manager over the same store, with only the declared block (where the
      // store hands out one manager, as the in-memory one does, it is configured already).
      const second = store.manager();
      const restarted = client(
        createApp({
          manager: second === manager ? second : second.withContext("memory"),
        }),
      );
      const listed = (await restarted("GET", `${base}/blocks`)).body.blocks;
      expect(listed.map((b: any) => [b.label, b.content])).toEqual([
        ["memory", ""],
        ["plans", "Trip to Lisbon in May."],
      ]);
      const prompt = (await restarted("GET", `${base}/prompt`)).body;
      expect(prompt.current).toContain("Trip to Lisbon in May.");
      const versions = (await restarted("GET", `${base}/blocks/plans/history`))
        .body.versions;
      expect(versions.map((v: any) => v.content)).toEqual([
        "Trip to Lisbon in May.",
      ]);
    }));
}
