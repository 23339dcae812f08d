// POST of a message id that is taken (docs/server.md#messages): exactly one request creates it
// (201); a retry with the same body answers 200 and the stored message; a different body answers
// 409 MESSAGE_EXISTS. The same holds for N requests at once, sent together through
// `app.request()` (and, where the backend has them, over several connections).
import { expect, it } from "vitest";
import { createApp } from "../../../src/server/index.js";
import type { WithStore } from "./api-suite.js";
import { client, text, type Answer } from "./client.js";

/** How many requests race in the concurrent cases. */
export const RACERS = 20;

/** The statuses of `answers`, counted: `{ 201: 1, 200: 19 }`. */
export function statusCounts(
  answers: readonly Answer[],
): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const answer of answers)
    counts[answer.status] = (counts[answer.status] ?? 0) + 1;
  return counts;
}

export function appendRaceCases(withStore: WithStore): void {
  it("answers a retry of the same body 200 and a different body 409", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Chat" } })
      ).body;
      const path = `/v1/sessions/${id}/messages`;
      const first = await call("POST", path, {
        json: { message: { ...text("u1", "Hi"), metadata: { a: 1, b: 2 } } },
      });
      expect(first.status).toBe(201);

      // The same body (key order aside): 200 and the stored message, nothing written.
      const retry = await call("POST", path, {
        json: { message: { metadata: { b: 2, a: 1 }, ...text("u1", "Hi") } },
      });
      expect(retry.status).toBe(200);
      expect(retry.body.message).toEqual(first.body.message);

      for (const [label, message] of [
        ["text", { ...text("u1", "Hi!"), metadata: { a: 1, b: 2 } }],
        [
          "role",
          { ...text("u1", "Hi", "assistant"), metadata: { a: 1, b: 2 } },
        ],
        ["metadata", { ...text("u1", "Hi"), metadata: { a: 1 } }],
        ["no metadata", text("u1", "Hi")],
      ] as const) {
        const changed = await call("POST", path, { json: { message } });
        expect({ label, status: changed.status }).toEqual({
          label,
          status: 409,
        });
        expect(changed.body.error.code).toBe("MESSAGE_EXISTS");
      }

      // The parent counts when one is given.
      await call("POST", path, {
        json: { message: text("a1", "Yo", "assistant") },
      });
      const underU1 = await call("POST", path, {
        json: { message: text("a1", "Yo", "assistant"), parentId: "u1" },
      });
      expect(underU1.status).toBe(200);
      const asRoot = await call("POST", path, {
        json: { message: text("a1", "Yo", "assistant"), parentId: null },
      });
      expect(asRoot.status).toBe(409);
      const rootAgain = await call("POST", path, {
        json: {
          message: { ...text("u1", "Hi"), metadata: { a: 1, b: 2 } },
          parentId: null,
        },
      });
      expect(rootAgain.status).toBe(200);
      const elsewhere = await call("POST", path, {
        json: { message: text("u1", "Hi"), parentId: "a1" },
      });
      expect(elsewhere.status).toBe(409);

      const session = await call("GET", `/v1/sessions/${id}`);
      expect(session.body.messageCount).toBe(2);
      const stored = await call("GET", `${path}/u1`);
      expect(stored.body.message).toEqual(first.body.message);
    }));

  it(`answers ${RACERS} concurrent POSTs of one id and body with one 201 and the rest 200`, () =>
    withStore(async (store) => {
      const app = createApp({ manager: store.manager() });
      const call = client(app);
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Chat" } })
      ).body;
      const path = `/v1/sessions/${id}/messages`;
      await call("POST", path, { json: { message: text("u0", "Start") } });
      for (let round = 0; round < 3; round++) {
        const message = text(`m${round}`, `Round ${round}`);
        const answers = await Promise.all(
          Array.from({ length: RACERS }, () =>
            call("POST", path, { json: { message } }),
          ),
        );
        expect(statusCounts(answers)).toEqual({ 201: 1, 200: RACERS - 1 });
        for (const answer of answers)
          expect(answer.body.message).toMatchObject(message);
      }
      const history = await call("GET", `/v1/sessions/${id}/history`);
      expect(history.body.messages.map((m: any) => m.id)).toEqual([
        "u0",
        "m0",
        "m1",
        "m2",
      ]);
      const session = await call("GET", `/v1/sessions/${id}`);
      expect(session.body.messageCount).toBe(4);
    }));

  it(`answers ${RACERS} concurrent POSTs of one id with different bodies one 201 and the rest 409`, () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Chat" } })
      ).body;
      const path = `/v1/sessions/${id}/messages`;
      const answers = await Promise.all(
        Array.from({ length: RACERS }, (_, index) =>
          call("POST", path, {
            json: { message: text("u1", `Body ${index}`) },
          }),
        ),
      );
      expect(statusCounts(answers)).toEqual({ 201: 1, 409: RACERS - 1 });
      const created = answers.find((answer) => answer.status === 201)!;
      for (const answer of answers.filter((answer) => answer.status === 409))
        expect(answer.body.error.code).toBe("MESSAGE_EXISTS");
      // The body that was answered 201 is the one stored; no other was written.
      const stored = await call("GET", `${path}/u1`);
      expect(stored.body.message).toEqual(created.body.message);
      expect((await call("GET", `/v1/sessions/${id}`)).body.messageCount).toBe(
        1,
      );
    }));
}
