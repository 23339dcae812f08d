// ArborCheckpointSaver inside real workerd (miniflare): a Durable Object whose Arbor backend is
// `sqlBackend(this)` over the object's own SQLite (`ctx.storage.sql`), with LangGraph's packages
// bundled into the Worker as a user's bundler would, without nodejs_compat. It puts a
// checkpoint, reads it back, lists it, and finds its `messages` channel mirrored as the Arbor
// session's history.
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, expect, it } from "vitest";
import { bundleWorker } from "../providers/support/bundle-worker.js";

const LANGGRAPH = fileURLToPath(
  new URL("../../src/langgraph/index.ts", import.meta.url),
);
const SESSION = fileURLToPath(
  new URL("../../src/session/index.ts", import.meta.url),
);

const WORKER = `
import { DurableObject } from "cloudflare:workers";
import { HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { ArborCheckpointSaver } from ${JSON.stringify(LANGGRAPH)};
import { sqlBackend } from ${JSON.stringify(SESSION)};

export class Threads extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.storage = ctx.storage.sql;
    this.saver = new ArborCheckpointSaver(sqlBackend(this));
  }
  sql(strings, ...values) { return [...this.storage.exec(strings.join("?"), ...values)]; }

  async fetch(request) {
    try {
      const config = { configurable: { thread_id: "t1", checkpoint_ns: "" } };
      const checkpoint = {
        ...emptyCheckpoint(),
        channel_values: { messages: [new HumanMessage({ id: "h1", content: "Hello from a Durable Object" })] },
        channel_versions: { messages: 1 },
      };
      const saved = await this.saver.put(config, checkpoint, { source: "input", step: -1, parents: {} }, { messages: 1 });
      const tuple = await this.saver.getTuple(config);
      const listed = [];
      for await (const item of this.saver.list({ configurable: { thread_id: "t1" } })) listed.push(item.checkpoint.id);
      const history = await this.saver.manager.getSession("t1").getHistory();
      return Response.json({
        id: checkpoint.id,
        saved: saved.configurable.checkpoint_id,
        read: tuple?.checkpoint.id,
        content: tuple?.checkpoint.channel_values.messages?.[0]?.content,
        metadata: tuple?.metadata,
        listed,
        history: history.map((m) => ({ role: m.role, text: m.parts.map((p) => p.text ?? "").join("") })),
      });
    } catch (error) {
      return Response.json({ code: error.code, message: String(error.stack ?? error) }, { status: 500 });
    }
  }
}

export default {
  fetch(request, env) {
    return env.THREADS.get(env.THREADS.idFromName("one")).fetch(request);
  },
};
`;

let worker: Miniflare | undefined;

beforeAll(async () => {
  worker = new Miniflare({
    modules: true,
    script: await bundleWorker({ source: WORKER }),
    compatibilityDate: "2025-01-01",
    durableObjects: { THREADS: { className: "Threads", useSQLite: true } },
  });
  await worker.ready;
}, 120_000);
afterAll(() => worker?.dispose());

it("puts, reads and lists a checkpoint over a Durable Object's SQLite, its messages mirrored", async () => {
  const response = await worker!.dispatchFetch("http://threads/");
  const reply = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(reply)).toBe(200);
  expect(reply.saved).toBe(reply.id);
  expect(reply.read).toBe(reply.id);
  expect(reply.content).toBe("Hello from a Durable Object");
  expect(reply.metadata).toEqual({ source: "input", step: -1, parents: {} });
  expect(reply.listed).toEqual([reply.id]);
  expect(reply.history).toEqual([
    { role: "user", text: "Hello from a Durable Object" },
  ]);
});
