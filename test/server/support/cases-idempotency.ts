// Idempotency-Key on the writes without a natural id (docs/server.md#retrying-writes): an append
// without a message id, a fork, a compaction overlay, compact. A retry with the same key and
// request answers the first answer and writes nothing; another request under the key answers 422.
import { expect, it, vi } from "vitest";
import { createApp } from "../../../src/server/index.js";
import { ImportIndex } from "../../../src/session/index.js";
import type { WithStore } from "./api-suite.js";
import { statusCounts, RACERS } from "./cases-append-races.js";
import { client, text } from "./client.js";

export function idempotencyCases(withStore: WithStore): void {
  it("an append without an id under an Idempotency-Key stores one message, however often it is retried", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Chat" } })
      ).body;
      const path = `/v1/sessions/${id}/messages`;
      const message = { role: "user", parts: [{ type: "text", text: "Hi" }] };
      const headers = { "Idempotency-Key": "append-1" };
      const first = await call("POST", path, { json: { message }, headers });
      expect(first.status).toBe(201);
      const retry = await call("POST", path, { json: { message }, headers });
      expect([retry.status, retry.headers.get("idempotent-replayed")]).toEqual([
        200,
        "true",
      ]);
      expect(retry.body.message.id).toBe(first.body.message.id);
      // Retried at once from many clients (a second process is another manager): still one.
      const other = client(createApp({ manager: store.manager() }));
      const racers = await Promise.all(
        Array.from({ length: RACERS }, (_, index) =>
          (index % 2 ? other : call)("POST", path, {
            json: { message },
            headers: { "Idempotency-Key": "append-2" },
          }),
        ),
      );
      expect(statusCounts(racers)).toEqual({ 201: 1, 200: RACERS - 1 });
      const reused = await call("POST", path, {
        json: {
          message: { role: "user", parts: [{ type: "text", text: "Other" }] },
        },
        headers,
      });
      expect([reused.status, reused.body.error.code]).toEqual([
        422,
        "IDEMPOTENCY_KEY_REUSED",
      ]);
      // Another tenant's key space (no auth here: one space) and no key at all: new messages.
      const plain = await call("POST", path, { json: { message } });
      expect(plain.status).toBe(201);
      const history = await call("GET", `/v1/sessions/${id}/history`);
      expect(history.body.messages).toHaveLength(3);
    }));

  it("a fork, a new session and a compaction overlay retried under their Idempotency-Key are written once", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Source" } })
      ).body;
      for (const [messageId, words] of [
        ["m1", "one"],
        ["m2", "two"],
        ["m3", "three"],
      ] as const)
        await call("POST", `/v1/sessions/${id}/messages`, {
          json: { message: text(messageId, words) },
        });
      const fork = (key: string, messageId = "m2") =>
        call("POST", `/v1/sessions/${id}/fork`, {
          json: { messageId },
          headers: { "Idempotency-Key": key },
        });
      const first = await fork("fork-1");
      expect(first.status).toBe(201);
      const retry = await fork("fork-1");
      expect([retry.status, retry.headers.get("idempotent-replayed")]).toEqual([
        201,
        "true",
      ]);
      expect(retry.body.id).toBe(first.body.id);
      expect((await fork("fork-1", "m3")).body.error.code).toBe(
        "IDEMPOTENCY_KEY_REUSED",
      );
      const list = await call("GET", "/v1/sessions");
      expect(list.body.sessions).toHaveLength(2);
      const create = () =>
        call("POST", "/v1/sessions", {
          json: { name: "Once" },
          headers: { "Idempotency-Key": "create-1" },
        });
      const made = await create();
      expect([made.status, (await create()).body.id]).toEqual([
        201,
        made.body.id,
      ]);
      expect((await call("GET", "/v1/sessions")).body.sessions).toHaveLength(3);

      const overlay = (key: string) =>
        call("POST", `/v1/sessions/${id}/compactions`, {
          json: { summary: "Counted", fromMessageId: "m1", toMessageId: "m2" },
          headers: { "Idempotency-Key": key },
        });
      const stored = await overlay("overlay-1");
      expect(stored.status).toBe(201);
      const again = await overlay("overlay-1");
      expect([again.status, again.body.id]).toEqual([201, stored.body.id]);
      // A key names one request, whatever the route: the fork's key is taken.
      expect((await overlay("fork-1")).status).toBe(422);
      const compactions = await call("GET", `/v1/sessions/${id}/compactions`);
      expect(compactions.body.compactions).toHaveLength(1);
    }));

  it("a create, a fork and an overlay whose first answer was lost after the write committed are not written again by their retry", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Source" } })
      ).body;
      for (const [messageId, words] of [
        ["m1", "one"],
        ["m2", "two"],
      ] as const)
        await call("POST", `/v1/sessions/${id}/messages`, {
          json: { message: text(messageId, words) },
        });
      // The process dies between the write and storing its answer (injected: the record's
      // write fails once), so the client sees no answer it can trust and retries.
      const lostAnswer = async (request: () => ReturnType<typeof call>) => {
        const fault = vi
          .spyOn(ImportIndex.prototype, "recordIdempotent")
          .mockRejectedValueOnce(new Error("the process died"));
        try {
          expect((await request()).status).toBe(500);
        } finally {
          fault.mockRestore();
        }
        const retry = await request();
        expect(retry.status).toBe(201);
        // The retry stored its answer: a third try replays it.
        const third = await request();
        expect(third.headers.get("idempotent-replayed")).toBe("true");
        expect(third.body).toEqual(retry.body);
        return retry;
      };
      const created = await lostAnswer(() =>
        call("POST", "/v1/sessions", {
          json: { name: "Once" },
          headers: { "Idempotency-Key": "lost-create" },
        }),
      );
      expect(created.headers.get("idempotent-replayed")).toBe("true");
      const forked = await lostAnswer(() =>
        call("POST", `/v1/sessions/${id}/fork`, {
          json: { messageId: "m2", name: "Fork" },
          headers: { "Idempotency-Key": "lost-fork" },
        }),
      );
      const sessions = (await call("GET", "/v1/sessions")).body.sessions;
      expect(sessions.map((row: { name: string }) => row.name).sort()).toEqual([
        "Fork",
        "Once",
        "Source",
      ]);
      const forkHistory = await call(
        "GET",
        `/v1/sessions/${forked.body.id}/history`,
      );
      expect(forkHistory.body.messages).toHaveLength(2);
      await lostAnswer(() =>
        call("POST", `/v1/sessions/${id}/compactions`, {
          json: { summary: "Counted", fromMessageId: "m1", toMessageId: "m2" },
          headers: { "Idempotency-Key": "lost-overlay" },
        }),
      );
      const compactions = await call("GET", `/v1/sessions/${id}/compactions`);
      expect(compactions.body.compactions).toHaveLength(1);
    }));
}
