// Idempotency under races (docs/server.md#retrying-writes): many requests with one
// Idempotency-Key at once, split over two processes (two managers over one store), make one
// effect and get one answer on every write route; a retry that arrives while the first attempt
// still runs waits for its answer; an import without a key is known by its conversation.
import { expect, it } from "vitest";
import { createApp } from "../../../src/server/index.js";
import type { SessionManager } from "../../../src/session/index.js";
import type { WithStore } from "./api-suite.js";
import { client, text, type Answer, type Call } from "./client.js";

/** Requests sent at once with one key. */
const AT_ONCE = 10;

/** An OpenAI message array: a file without a conversation id (known by its content). */
const CHAT_FILE = JSON.stringify([
  { role: "user", content: "Which trains go to Porto?" },
  { role: "assistant", content: "The Alfa Pendular, every hour." },
]);

/** What the store holds that a write route changes: counted through the API. */
async function counts(call: Call, id: string) {
  const sessions = (await call("GET", "/v1/sessions?limit=100")).body
    .sessions as { id: string }[];
  const tree = (await call("GET", `/v1/sessions/${id}/tree`)).body.nodes;
  const compactions = (await call("GET", `/v1/sessions/${id}/compactions`)).body
    .compactions;
  const history = await call("GET", `/v1/sessions/${id}/blocks/memory/history`);
  const versions = history.body.versions;
  if (!versions) throw new Error(`block history: ${history.text}`);
  const blocks = (await call("GET", `/v1/sessions/${id}/blocks`)).body.blocks;
  return {
    blocks: blocks.length as number,
    sessions: sessions.length,
    messages: tree.length as number,
    compactions: compactions.length as number,
    versions: versions.length as number,
  };
}

/** The answers with their replay marker dropped: what a client reads. */
function answersOf(answers: readonly Answer[]) {
  return answers.map((answer) => ({
    status: answer.status,
    body: answer.body as unknown,
  }));
}

export function idempotencyRaceCases(withStore: WithStore): void {
  it(`${AT_ONCE} requests at once with one Idempotency-Key over two processes make one effect and get one answer, on every write route (fake summarizer)`, () =>
    withStore(async (store) => {
      let summaries = 0;
      // A fake summarizer (no LLM): it summarizes the first two messages no overlay covers yet.
      const compaction = async (messages: { id: string }[]) => {
        summaries++;
        const [from, to] = messages.filter((m) => /^m\d+$/.test(m.id));
        return {
          fromMessageId: from!.id,
          toMessageId: to!.id,
          summary: `summary ${summaries}`,
        };
      };
      // (Where the store hands out one manager, as the in-memory one does, it is configured once.)
      const seen = new Set<SessionManager>();
      const configured = (manager: SessionManager) => {
        if (!seen.has(manager))
          manager.withContext("memory", { maxTokens: 500 });
        seen.add(manager);
        return manager;
      };
      const apps = [0, 1].map(() =>
        client(
          createApp({
            manager: configured(store.manager()),
            compaction,
            logError: () => undefined,
          }),
        ),
      );
      const call = apps[0]!;
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Source" } })
      ).body;
      for (let index = 1; index <= 8; index++)
        await call("POST", `/v1/sessions/${id}/messages`, {
          json: { message: text(`m${index}`, `message ${index}`) },
        });
      await call("PUT", `/v1/sessions/${id}/blocks/memory`, {
        json: { content: "Likes trains" },
      });
      const base = `/v1/sessions/${id}`;
      const routes: Array<{
        name: string;
        method: string;
        path: string;
        json?: unknown;
        raw?: string;
        effect: Partial<Awaited<ReturnType<typeof counts>>>;
      }> = [
        {
          name: "create",
          method: "POST",
          path: "/v1/sessions",
          json: { name: "Once" },
          effect: { sessions: 1 },
        },
        {
          name: "append",
          method: "POST",
          path: `${base}/messages`,
          json: {
            message: { role: "user", parts: [{ type: "text", text: "Hi" }] },
          },
          effect: { messages: 1 },
        },
        {
          name: "import",
          method: "POST",
          path: "/v1/import?format=openai&fileName=chat.json",
          raw: CHAT_FILE,
          effect: { sessions: 1 },
        },
        {
          name: "fork",
          method: "POST",
          path: `${base}/fork`,
          json: { messageId: "m2" },
          effect: { sessions: 1 },
        },
        {
          name: "overlay",
          method: "POST",
          path: `${base}/compactions`,
          json: {
            summary: "One and two",
            fromMessageId: "m1",
            toMessageId: "m2",
          },
          effect: { compactions: 1 },
        },
        {
          name: "compact",
          method: "POST",
          path: `${base}/compact`,
          json: {},
          effect: { compactions: 1 },
        },
        {
          name: "block",
          method: "PUT",
          path: `${base}/blocks/memory`,
          json: { content: "Likes trains and boats" },
          effect: { versions: 1 },
        },
        {
          name: "create block",
          method: "POST",
          path: `${base}/blocks`,
          json: { label: "plans", content: "Lisbon in May" },
          effect: { blocks: 1 },
        },
        {
          name: "delete block",
          method: "DELETE",
          path: `${base}/blocks/plans`,
          effect: { blocks: -1 },
        },
        {
          name: "revert",
          method: "POST",
          path: `${base}/blocks/memory/revert`,
          json: { version: 1 },
          effect: { versions: 1 },
        },
      ];
      for (const route of routes) {
        const before = await counts(call, id);
        const answers = await Promise.all(
          Array.from({ length: AT_ONCE }, (_, index) =>
            apps[index % 2]!(route.method, route.path, {
              ...(route.json !== undefined ? { json: route.json } : {}),
              ...(route.raw !== undefined ? { raw: route.raw } : {}),
              headers: { "Idempotency-Key": `race-${route.name}` },
            }),
          ),
        );
        const after = await counts(call, id);
        expect(
          { route: route.name, answers: answersOf(answers) },
          `one answer for ${route.name}`,
        ).toEqual({
          route: route.name,
          answers: Array(AT_ONCE).fill(answersOf(answers)[0]),
        });
        expect(answers[0]!.status, route.name).toBeLessThan(300);
        // Every answer but the one that ran says it was replayed.
        expect(
          answers.filter((a) => a.headers.get("idempotent-replayed") !== "true")
            .length,
          route.name,
        ).toBeLessThanOrEqual(1);
        const expected = { ...before };
        for (const [key, delta] of Object.entries(route.effect))
          expected[key as keyof typeof before] += delta;
        expect({ route: route.name, ...after }).toEqual({
          route: route.name,
          ...expected,
        });
      }
      expect(summaries).toBe(1);
    }));

  it("a retry that arrives while the first attempt still runs waits for its answer and writes nothing (an import, two processes)", () =>
    withStore(async (store) => {
      const first = store.manager();
      const call = client(createApp({ manager: first }));
      const other = client(createApp({ manager: store.manager() }));
      // The first attempt stops inside its import (after parsing, before the write): its
      // manager's importSession is held until the retry has been sent.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const importSession = first.importSession.bind(first);
      first.importSession = async (...args) => {
        entered();
        await held;
        return importSession(...args);
      };
      const send = (via: Call) =>
        via("POST", "/v1/import?format=openai&fileName=chat.json", {
          raw: CHAT_FILE,
          headers: { "Idempotency-Key": "slow-import" },
        });
      const running = send(call);
      await inside;
      let settled = false;
      const retry = send(other).finally(() => (settled = true));
      // The retry cannot answer while the first attempt holds the key.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(settled).toBe(false);
      release();
      const [done, replay] = await Promise.all([running, retry]);
      expect(done.status).toBe(201);
      expect([
        replay.status,
        replay.headers.get("idempotent-replayed"),
      ]).toEqual([201, "true"]);
      expect(replay.body).toEqual(done.body);
      // The answer reached the client this time too late: a retry now replays it at once.
      const late = await send(other);
      expect([late.status, late.body]).toEqual([201, done.body]);
      expect((await call("GET", "/v1/sessions")).body.sessions).toHaveLength(1);
    }));

  it(`${AT_ONCE} imports of one file at once without a key make one session: the conversation's identity (two processes)`, () =>
    withStore(async (store) => {
      const apps = [0, 1].map(() =>
        client(createApp({ manager: store.manager() })),
      );
      const answers = await Promise.all(
        Array.from({ length: AT_ONCE }, (_, index) =>
          apps[index % 2]!(
            "POST",
            "/v1/import?format=openai&fileName=chat.json",
            { raw: CHAT_FILE },
          ),
        ),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([...Array(AT_ONCE - 1).fill(200), 201]);
      const sessions = (await apps[0]!("GET", "/v1/sessions")).body.sessions;
      expect(sessions).toHaveLength(1);
      expect(sessions[0].messageCount).toBe(2);
      // The others name the session the one that ran made.
      for (const answer of answers.filter((a) => a.status === 200))
        expect(answer.body.skippedConversations).toEqual([
          expect.objectContaining({
            reason: "exists",
            sessionId: sessions[0].id,
          }),
        ]);
    }));
}
