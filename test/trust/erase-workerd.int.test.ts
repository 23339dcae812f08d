// Erase and prune (test/trust/erase/erase-scenarios.ts) inside workerd: each scenario runs in a
// Durable Object on its own SQLite, bundled by rolldown and run by miniflare, and scans every
// table the object can read (FTS5 shadow tables included) for the erased text.
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker } from "../providers/support/bundle-worker.js";
import { ERASE_SCENARIOS } from "./erase/erase-scenarios.js";

let worker: Miniflare | undefined;

beforeAll(async () => {
  worker = new Miniflare({
    modules: true,
    script: await bundleWorker({
      entry: new URL("./erase/erase-worker.mjs", import.meta.url),
    }),
    compatibilityDate: "2025-01-01",
    compatibilityFlags: ["nodejs_compat"],
    durableObjects: { RUNS: { className: "EraseRuns", useSQLite: true } },
  });
  await worker.ready;
}, 120_000);
afterAll(() => worker?.dispose());

describe("erase and prune in a Durable Object", () => {
  for (const scenario of Object.keys(ERASE_SCENARIOS)) {
    it(
      scenario,
      async () => {
        const response = await worker!.dispatchFetch("http://erase/", {
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
