// The route helper inside real workerd (miniflare): a Durable Object whose `fetch` is
// `createChatHandler().fetch` over `SessionManager.create(this)` (the object's own SQLite, the
// streams in it too), with the example's scripted offline model (a stand-in, not a language
// model). Bundled from the sources with `ai` inlined, as a Worker bundler does.
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker } from "../providers/support/bundle-worker.js";
import { readUntil, sseChunks, textOf, userMessage } from "./chat-client.js";

const source = (path: string) =>
  JSON.stringify(fileURLToPath(new URL(path, import.meta.url)));

const WORKER = `
import { DurableObject } from "cloudflare:workers";
import * as ai from "ai";
import { createChatHandler } from ${source("../../src/ai-sdk/index.ts")};
import { SessionManager } from ${source("../../src/session/index.ts")};
import { scriptedModel } from ${source("../../examples/chat/scripted-model.mjs")};

export class Chat extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.storage = ctx.storage.sql;
    const model = scriptedModel({ delayMs: 5 });
    this.chat = createChatHandler({
      manager: SessionManager.create(this),
      waitUntil: (promise) => ctx.waitUntil(promise),
      respond: (c) => ai.streamText({ model, system: c.system, messages: c.messages,
        tools: c.tools, abortSignal: c.abortSignal }),
    });
  }
  sql(strings, ...values) { return [...this.storage.exec(strings.join("?"), ...values)]; }

  async fetch(request) {
    const ownerId = request.headers.get("x-owner");
    if (new URL(request.url).pathname === "/__test/chat")
      return Response.json({ id: await this.chat.createChat({ ownerId }) });
    return this.chat.fetch(request, { ownerId });
  }
}

export default {
  fetch(request, env) {
    return env.CHAT.get(env.CHAT.idFromName("one")).fetch(request);
  },
};
`;

let worker: Miniflare | undefined;
let chatId = "";

const call = (path: string, init: { method?: string; body?: unknown } = {}) =>
  worker!.dispatchFetch(`http://chat${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { "content-type": "application/json", "x-owner": "user-1" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

beforeAll(async () => {
  worker = new Miniflare({
    modules: true,
    script: await bundleWorker({ source: WORKER }),
    compatibilityDate: "2025-01-01",
    compatibilityFlags: ["nodejs_compat"],
    durableObjects: { CHAT: { className: "Chat", useSQLite: true } },
  });
  await worker.ready;
  chatId = ((await (await call("/__test/chat")).json()) as { id: string }).id;
}, 120_000);
afterAll(async () => {
  await worker?.dispose();
});

interface View {
  messages: Array<{
    id: string;
    role: string;
    metadata?: Record<string, unknown>;
    parts: Array<{ text?: string }>;
  }>;
  branches: Record<string, { siblings: string[]; index: number }>;
}

const textPart = (message: View["messages"][number]) =>
  message.parts.map((part) => part.text ?? "").join("");

describe("createChatHandler in a Durable Object (workerd, scripted offline model)", () => {
  it("answers, regenerates into a sibling, and stops a long answer keeping what was said", async () => {
    const first = sseChunks(
      await (
        await call("/api/chat", {
          body: { id: chatId, message: userMessage("u1", "hello") },
        })
      ).text(),
    );
    expect(textOf(first)).toContain("answer number 1");
    const firstId = String(first[0]!.messageId);
    const second = sseChunks(
      await (
        await call("/api/chat", {
          body: {
            id: chatId,
            trigger: "regenerate-message",
            messageId: firstId,
          },
        })
      ).text(),
    );
    expect(textOf(second)).toContain("answer number 2");
    let view = (await (await call(`/api/chat/${chatId}`)).json()) as View;
    expect(view.branches[view.messages[1]!.id]?.siblings).toHaveLength(2);

    const long = await call("/api/chat", {
      body: { id: chatId, message: userMessage("u2", "a long one") },
    });
    const reading = await readUntil(long, "word3");
    const stop = await call(`/api/chat/${chatId}/stop`, { body: {} });
    expect(await stop.json()).toEqual({ stopped: true });
    const chunks = await reading.rest();
    expect(chunks.at(-1)?.type).toBe("abort");
    view = (await (await call(`/api/chat/${chatId}`)).json()) as View;
    const partial = view.messages.at(-1)!;
    expect(partial.metadata).toMatchObject({ partial: true });
    expect(textPart(partial)).toContain("word3");
    expect(textPart(partial)).not.toContain("END.");
    expect((await call(`/api/chat/${chatId}/stream`)).status).toBe(204);
  }, 60_000);

  it("a reload mid-answer resumes it (its chunks are written to the object's SQLite as it goes)", async () => {
    const long = await call("/api/chat", {
      body: { id: chatId, message: userMessage("u3", "another long one") },
    });
    const reading = await readUntil(long, "word2");
    await reading.cancel();
    const resumed = await call(`/api/chat/${chatId}/stream`);
    expect(resumed.status).toBe(200);
    const chunks = sseChunks(await resumed.text());
    expect(chunks[0]?.type).toBe("start");
    expect(textOf(chunks)).toContain("END.");
    const view = (await (await call(`/api/chat/${chatId}`)).json()) as View;
    expect(textPart(view.messages.at(-1)!)).toContain("END.");
  }, 60_000);

  it("never opens another owner's chat", async () => {
    const response = await worker!.dispatchFetch(
      `http://chat/api/chat/${chatId}`,
      {
        headers: { "x-owner": "user-2" },
      },
    );
    expect(response.status).toBe(404);
  });
});
