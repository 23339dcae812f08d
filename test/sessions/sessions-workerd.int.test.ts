// `arbor-memory/sessions` inside a Durable Object in real workerd (through miniflare): the
// sources of the entry are transpiled module by module and loaded as the worker's modules, so
// the entry and everything it reaches must load without Node built-ins. The object passes
// itself (a `sql` tagged template over `ctx.storage.sql`) as the store.
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SRC, transpileGraph } from "../providers/support/transpile-graph.js";

const ENTRY = new URL("sessions/index.ts", SRC);

const WORKER = `
import { Sessions } from "./sessions/index.js";

const text = (id, body) => ({ id, role: "user", parts: [{ type: "text", text: body }] });

export class Conversation {
  constructor(ctx) {
    this.storage = ctx.storage.sql;
    this.sessions = new Sessions(this);
    this.session = this.sessions.session();
  }
  sql(strings, ...values) { return [...this.storage.exec(strings.join("?"), ...values)]; }

  async fetch(request) {
    try {
      const scenario = new URL(request.url).pathname.slice(1);
      return Response.json(await this[scenario]());
    } catch (error) {
      return Response.json({ error: String((error && error.stack) || error) }, { status: 500 });
    }
  }

  async write() {
    const events = [];
    const stop = this.sessions.subscribe((event) => {
      events.push([event.type, event.sessionId, event.message ? event.message.id : null]);
    });
    const first = await this.session.appendMessage(text("u1", "Hello from a Durable Object"));
    const again = await this.session.appendMessage(text("u1", "ignored"));
    await this.session.appendMessage(text("a1", "Hi"));
    await this.sessions.session("side").appendMessage(text("s1", "elsewhere"));
    await this.session.updateMessage(text("a1", "Hi there"));
    const history = [];
    for await (const message of this.session.history()) history.push(message.id);
    const batches = [];
    for await (const batch of this.session.historyBatches({ batchSize: 1 })) batches.push(batch.length);
    const recent = await this.session.getRecentHistory(1);
    const search = (await this.session.search("durable")).map((hit) => hit.id);
    await new Promise((resolve) => setTimeout(resolve, 20));
    stop();
    return { first: first.inserted, again: again.inserted, history, batches, recent: recent.messages.map((m) => m.id), search, events };
  }

  async reread() {
    const history = [];
    for await (const message of this.session.history()) history.push([message.id, message.parts[0].text]);
    return { history };
  }
}

export default {
  fetch(request, env) {
    return env.CONVERSATION.get(env.CONVERSATION.idFromName("one")).fetch(request);
  },
};
`;

let worker: Miniflare;

beforeAll(() => {
  worker = new Miniflare({
    modules: [
      { type: "ESModule", path: "/worker/index.js", contents: WORKER },
      ...[...transpileGraph(ENTRY)].map(([path, contents]) => ({
        type: "ESModule" as const,
        path: `/worker/${path}`,
        contents,
      })),
    ],
    modulesRoot: "/worker",
    compatibilityDate: "2025-01-01",
    durableObjects: {
      CONVERSATION: { className: "Conversation", useSQLite: true },
    },
  });
});

afterAll(async () => {
  await worker?.dispose();
});

async function run(scenario: string): Promise<Record<string, unknown>> {
  const response = await worker.dispatchFetch(`http://localhost/${scenario}`);
  const body = (await response.json()) as Record<string, unknown>;
  expect(body.error).toBeUndefined();
  return body;
}

describe("arbor-memory/sessions inside a Durable Object (workerd)", () => {
  it("appends, streams history and reports each write to subscribe()", async () => {
    expect(await run("write")).toEqual({
      first: true,
      again: false,
      history: ["u1", "a1"],
      batches: [1, 1],
      recent: ["a1"],
      search: ["u1"],
      events: [
        ["append", "", "u1"],
        ["append", "", "a1"],
        ["append", "side", "s1"],
        ["update", "", "a1"],
      ],
    });
  });

  it("keeps the conversation in the object's storage across requests", async () => {
    expect(await run("reread")).toEqual({
      history: [
        ["u1", "Hello from a Durable Object"],
        ["a1", "Hi there"],
      ],
    });
  });
});
