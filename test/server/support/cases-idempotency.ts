// Idempotency-Key on the writes without a natural id (docs/server.md#retrying-writes): an append
// without a message id, a fork, a compaction overlay, compact. A retry with the same key and
// request answers the first answer and writes nothing; another request under the key answers 422.
import { expect, it, vi } from "vitest";
import { createApp } from "../../../src/server/index.js";
import { CLAIM_STALE_MS } from "../../../src/server/idempotency.js";
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
      // The retry answers what the first attempt answered.
      expect([retry.status, retry.headers.get("idempotent-replayed")]).toEqual([
        201,
        "true",
      ]);
      expect(retry.body).toEqual(first.body);
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
      expect(statusCounts(racers)).toEqual({ 201: RACERS });
      expect(
        racers.filter((a) => a.headers.get("idempotent-replayed") === "true"),
      ).toHaveLength(RACERS - 1);
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

  it("POST …/compact under an Idempotency-Key compacts once: a retry after a lost answer replays, one during the run waits (409), one after a failure or a dead attempt runs (fake summarizer, two managers as two processes)", () =>
    withStore(async (store) => {
      let calls = 0;
      let gate: Promise<void> | null = null;
      let failNext = false;
      // A fake summarizer (no LLM): it summarizes the first two messages no overlay covers yet.
      const compaction = async (messages: { id: string }[]) => {
        calls++;
        const [from, to] = messages.filter((m) => /^m\d+$/.test(m.id));
        if (gate) await gate;
        if (failNext) {
          failNext = false;
          throw new Error("the model is down");
        }
        return {
          fromMessageId: from!.id,
          toMessageId: to!.id,
          summary: `summary ${calls}`,
        };
      };
      const app = (idempotencyWaitMs?: number) =>
        createApp({
          manager: store.manager(),
          compaction,
          logError: () => undefined,
          ...(idempotencyWaitMs !== undefined ? { idempotencyWaitMs } : {}),
        });
      const call = client(app());
      const other = client(app());
      // A process that answers at once instead of waiting for a request that still runs.
      const impatient = client(app(0));
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Long" } })
      ).body;
      for (let index = 1; index <= 12; index++)
        await call("POST", `/v1/sessions/${id}/messages`, {
          json: { message: text(`m${index}`, `message ${index}`) },
        });
      const compact = (key: string, via = call, json: object = {}) =>
        via("POST", `/v1/sessions/${id}/compact`, {
          json,
          headers: { "Idempotency-Key": key },
        });
      const overlays = async () =>
        (await call("GET", `/v1/sessions/${id}/compactions`)).body
          .compactions as { id: string }[];

      // The answer is lost after the overlay is stored (injected: storing it fails once).
      const fault = vi
        .spyOn(ImportIndex.prototype, "recordIdempotent")
        .mockRejectedValueOnce(new Error("the process died"));
      try {
        expect((await compact("lost")).status).toBe(500);
      } finally {
        fault.mockRestore();
      }
      const retry = await compact("lost", other);
      expect([retry.status, retry.headers.get("idempotent-replayed")]).toEqual([
        200,
        "true",
      ]);
      expect(retry.body.compaction.id).toBe((await overlays())[0]!.id);
      expect((await compact("lost")).body).toEqual(retry.body);
      expect([calls, (await overlays()).length]).toEqual([1, 1]);
      expect((await compact("lost", call, { leafId: "m3" })).status).toBe(422);

      // A retry while the first attempt still runs (in the other process) waits for its
      // answer; one that may not wait (`idempotencyWaitMs: 0`) answers 409 with Retry-After.
      let open!: () => void;
      gate = new Promise((resolve) => (open = resolve));
      const running = compact("slow");
      await vi.waitFor(() => expect(calls).toBe(2));
      const waiting = compact("slow", other);
      const refused = await compact("slow", impatient);
      expect([
        refused.status,
        refused.body.error.code,
        refused.headers.get("retry-after"),
      ]).toEqual([409, "IDEMPOTENCY_IN_PROGRESS", "2"]);
      gate = null;
      open();
      const done = await running;
      expect(done.status).toBe(200);
      const waited = await waiting;
      expect([waited.status, waited.body]).toEqual([200, done.body]);
      expect(waited.headers.get("idempotent-replayed")).toBe("true");
      const after = await compact("slow", other);
      expect([after.status, after.body]).toEqual([200, done.body]);
      expect([calls, (await overlays()).length]).toEqual([2, 2]);

      // A first attempt that failed: its retry runs at once.
      failNext = true;
      expect((await compact("flaky")).status).toBe(500);
      const rerun = await compact("flaky", other);
      expect([rerun.status, rerun.headers.get("idempotent-replayed")]).toEqual([
        200,
        null,
      ]);
      expect([calls, (await overlays()).length]).toEqual([4, 3]);

      // A first attempt that never finishes (its process hangs): after CLAIM_STALE_MS one retry
      // in another process takes it over. When the hung attempt wakes up, it finds the retry's
      // overlay and stores nothing. (Where both apps share one manager, as the in-memory suite
      // does, they are one process, and there a compaction queues behind the one in flight.)
      const firstManager = store.manager();
      if (firstManager === store.manager()) return;
      let wake!: () => void;
      gate = new Promise((resolve) => (wake = resolve));
      const hung = compact("hung");
      await vi.waitFor(() => expect(calls).toBe(5));
      gate = null;
      expect((await compact("hung", impatient)).status).toBe(409);
      const now = Date.now();
      const clock = vi
        .spyOn(Date, "now")
        .mockReturnValue(now + CLAIM_STALE_MS + 1_000);
      let takeover;
      try {
        takeover = await compact("hung", other);
      } finally {
        clock.mockRestore();
      }
      expect([takeover.status, calls]).toEqual([200, 6]);
      wake();
      const woke = await hung;
      expect([woke.status, woke.body.compaction.id]).toEqual([
        200,
        takeover.body.compaction.id,
      ]);
      expect((await overlays()).length).toBe(4);
    }));
}
