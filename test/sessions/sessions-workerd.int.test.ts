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

  // A 2 MiB message (over the 2 MB row limit of Durable Object SQLite) through Sessions.
  async large() {
    const session = this.sessions.session("large");
    const unit = "Grüße aus Kyōto, 東京 🌸 ";
    const body = unit.repeat(Math.ceil((2 * 1024 * 1024) / new TextEncoder().encode(unit).length));
    const bytes = new TextEncoder().encode(JSON.stringify(text("big", body))).length;
    await session.appendMessage(text("u0", "small"));
    await session.appendMessage(text("big", body));
    const whole = (message) => Boolean(message) && message.parts[0].text === body;
    const newest = [];
    for await (const message of session.history({ newestFirst: true })) newest.push(message);
    const stats = await session.getHistoryRowStats();
    const recent = await session.getRecentHistory(1024);
    const events = [];
    const stop = this.sessions.subscribe((event) => {
      events.push([event.type, event.message ? event.message.id : null]);
    });
    const again = await session.appendMessage(text("big", body));
    await session.updateMessage(text("big", body));
    await session.upsertMessage(text("big", body));
    await session.updateMessage(text("u0", "changed"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop();
    return {
      stored: whole(await session.getMessage("big")),
      history: whole((await session.getHistory()).at(-1)),
      newestFirst: whole(newest[0]),
      statsCountAll: stats[1].bytes >= bytes,
      recent: [recent.messages.map((m) => m.id), recent.truncated, recent.totalContentBytes > bytes, whole(recent.messages[0])],
      again: again.inserted,
      events,
    };
  }

  async compactTwice() {
    const session = this.sessions.session("compact");
    for (const id of ["a", "b", "c", "d", "e", "f"]) await session.appendMessage(text(id, id));
    let round = 0;
    session.onCompaction(async (messages) => {
      round++;
      return { fromMessageId: messages[0].id, toMessageId: round === 1 ? "b" : "d", summary: "summary " + round };
    });
    const first = await session.compact();
    const second = await session.compact();
    const history = await session.getHistory();
    return {
      first,
      second,
      history: history.map((m) => (m.id.startsWith("compaction_") ? m.parts[0].text : m.id)),
    };
  }

  async overlayRows() {
    const session = this.sessions.session("overlays");
    for (const id of ["u1", "a1", "u2", "a2"]) await session.appendMessage(text(id, id));
    const older = await session.addCompaction("an earlier take", "u1", "a1");
    await session.addCompaction("u1 and a1", "u1", "a1");
    const [summary] = await session.getHistory();
    await session.importMessage(summary, { parentId: "a2", createdAt: Date.now() });
    const legacy = { id: "compaction_" + older.id, role: "assistant", parts: [{ type: "text", text: "old" }] };
    await session.importMessage(legacy, { parentId: "u2", createdAt: Date.now() });
    const leafBefore = (await session.getLatestLeaf()).id;
    const branchesBefore = (await session.getBranches("u2")).map((m) => m.id);
    await session.importMessage(text("c1", "c1"), { parentId: legacy.id, createdAt: Date.now() });
    const newest = [];
    for await (const message of session.history({ newestFirst: true })) newest.push(message.id === summary.id ? "summary" : message.id);
    return {
      leafBefore,
      branchesBefore,
      leafAfter: (await session.getLatestLeaf()).id,
      branchesAfter: (await session.getBranches("u2")).map((m) => m.id),
      newest,
      onBranch: (await session.getHistory({ leafId: "a2" })).map((m) => (m.id === summary.id ? "summary" : m.id)),
      stored: (await session.getMessage(legacy.id)).id === legacy.id,
    };
  }

  async mirror() {
    const session = this.sessions.session("mirror");
    await session.appendMessage(text("a", "one"));
    let cache = [];
    const applied = [];
    const stop = session.mirror({
      get: () => cache,
      set: (messages) => { cache = messages; },
      intercept: (event) => Boolean(event.message && event.message.id.startsWith("x")),
      onApplied: (event, message) => applied.push(event.type + ":" + message.id),
    });
    await session.updateMessage(text("a", "uno"));
    await session.appendMessage(text("x1", "intercepted"));
    await session.appendMessage(text("b", "two"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop();
    return { cache: cache.map((m) => m.id), applied };
  }

  async imported() {
    const session = this.sessions.session("imported");
    const message = text("x1", "imported from the old chat");
    await session.importMessage(message, { parentId: null, createdAt: Date.UTC(2025, 5, 6) });
    const [hit] = await session.search("imported");
    return { stored: await session.getMessage("x1"), hitTime: hit.createdAt };
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

  it("stores a 2 MiB message whole; stats and the read budget count all of it; resending it fires nothing", async () => {
    expect(await run("large")).toEqual({
      stored: true,
      history: true,
      newestFirst: true,
      statsCountAll: true,
      recent: [["big"], true, true, true],
      again: false,
      events: [["update", "u0"]],
    });
  });

  it("compact() with a result starting at an existing overlay extends that overlay", async () => {
    expect(await run("compactTwice")).toEqual({
      first: { fromMessageId: "a", toMessageId: "b", summary: "summary 1" },
      second: { fromMessageId: "a", toMessageId: "d", summary: "summary 2" },
      history: ["summary 2", "e", "f"],
    });
  });

  it("keeps overlay rows written as messages out of reads, their children re-parented", async () => {
    expect(await run("overlayRows")).toEqual({
      leafBefore: "a2",
      branchesBefore: ["a2"],
      leafAfter: "c1",
      branchesAfter: ["a2", "c1"],
      newest: ["c1", "u2", "summary"],
      onBranch: ["summary", "u2", "a2"],
      stored: true,
    });
  });

  it("mirror() ignores an update for a message it does not hold and what intercept handled", async () => {
    expect(await run("mirror")).toEqual({
      cache: ["b"],
      applied: ["append:b"],
    });
  });

  it("getMessage after importMessage returns the message as given; the time is the row's", async () => {
    expect(await run("imported")).toEqual({
      stored: {
        id: "x1",
        role: "user",
        parts: [{ type: "text", text: "imported from the old chat" }],
      },
      hitTime: "2025-06-06T00:00:00.000Z",
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
