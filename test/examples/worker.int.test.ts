// examples/worker/ runs in workerd (through miniflare) as `wrangler dev` would run it: a
// SQLite-backed Durable Object whose Arbor session lives in `ctx.storage.sql`. The conversation
// persists across requests, across a fresh stub, and across a restart of the runtime.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker } from "../providers/support/bundle-worker.js";

const ENTRY = new URL("../../examples/worker/src/index.js", import.meta.url);

interface Reply {
  history: Array<{ id: string; role: string; text: string }>;
}

/** The part of workerd's `DurableObjectNamespace` used here (no workers types in this repo). */
interface StubNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(url: string): Promise<Response> };
}

let script = "";
const persistDirectory = mkdtempSync(join(tmpdir(), "arbor-worker-example-"));

beforeAll(async () => {
  script = await bundleWorker({ entry: ENTRY });
});
afterAll(() => rmSync(persistDirectory, { recursive: true, force: true }));

/** A workerd instance configured as examples/worker/wrangler.jsonc, storing under `persistDirectory`. */
function startWorker(): Miniflare {
  return new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2025-01-01",
    durableObjects: { CHAT_AGENT: { className: "ChatAgent", useSQLite: true } },
    durableObjectsPersist: persistDirectory,
  });
}

async function send(worker: Miniflare, chat: string, text?: string) {
  const response = await worker.dispatchFetch(
    `http://example.com/?chat=${chat}`,
    text === undefined
      ? {}
      : { method: "POST", body: JSON.stringify({ text }) },
  );
  expect(response.status).toBe(200);
  return ((await response.json()) as Reply).history.map(
    (message) => `${message.role}: ${message.text}`,
  );
}

describe("examples/worker in workerd", () => {
  it("a POST appends and answers with the history; it persists across requests, stubs and restarts", async () => {
    const first = startWorker();
    try {
      expect(await send(first, "tea", "I like green tea.")).toEqual([
        "user: I like green tea.",
      ]);
      expect(await send(first, "tea", "How hot should the water be?")).toEqual([
        "user: I like green tea.",
        "user: How hot should the water be?",
      ]);
      // Another chat is another Durable Object, with its own storage.
      expect(await send(first, "coffee", "Espresso, please.")).toEqual([
        "user: Espresso, please.",
      ]);

      // A stub made outside the worker's fetch handler reaches the same object.
      const namespace = (await first.getDurableObjectNamespace(
        "CHAT_AGENT",
      )) as unknown as StubNamespace;
      const stub = namespace.get(namespace.idFromName("tea"));
      const response = await stub.fetch("http://example.com/");
      const reply = (await response.json()) as Reply;
      expect(reply.history.map((message) => message.text)).toEqual([
        "I like green tea.",
        "How hot should the water be?",
      ]);
    } finally {
      await first.dispose();
    }

    // A new runtime over the same storage: a new object instance, nothing kept in memory.
    const second = startWorker();
    try {
      expect(await send(second, "tea", "Thanks!")).toEqual([
        "user: I like green tea.",
        "user: How hot should the water be?",
        "user: Thanks!",
      ]);
    } finally {
      await second.dispose();
    }
  });

  it("rejects a POST without text and stores nothing", async () => {
    const worker = startWorker();
    try {
      const response = await worker.dispatchFetch(
        "http://example.com/?chat=empty",
        { method: "POST", body: JSON.stringify({}) },
      );
      expect(response.status).toBe(400);
      expect(await send(worker, "empty")).toEqual([]);
    } finally {
      await worker.dispose();
    }
  });
});
