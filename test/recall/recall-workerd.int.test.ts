// Recall (test/recall/recall-scenarios.ts) inside workerd: each scenario runs in a Durable
// Object on its own SQLite, bundled by rolldown and run by miniflare. The restart there is a
// new manager over the same storage (the queue is in the object's SQLite).
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker } from "../providers/support/bundle-worker.js";
import { RECALL_SCENARIOS } from "./recall-scenarios.js";

let worker: Miniflare | undefined;

beforeAll(async () => {
  worker = new Miniflare({
    modules: true,
    script: await bundleWorker({
      entry: new URL("./recall-worker.mjs", import.meta.url),
    }),
    compatibilityDate: "2025-01-01",
    compatibilityFlags: ["nodejs_compat"],
    durableObjects: { RUNS: { className: "RecallRuns", useSQLite: true } },
  });
  await worker.ready;
}, 120_000);
afterAll(() => worker?.dispose());

describe("recall in a Durable Object", () => {
  for (const scenario of Object.keys(RECALL_SCENARIOS)) {
    it(
      scenario,
      async () => {
        const response = await worker!.dispatchFetch("http://recall/", {
          method: "POST",
          body: JSON.stringify({ scenario }),
        });
        const reply = (await response.json()) as {
          ok: boolean;
          message?: string;
        };
        expect(reply.message ?? "").toBe("");
        expect(reply.ok).toBe(true);
      },
      120_000,
    );
  }
});
