// The model-based property test (test/trust/model/) inside workerd: the sequences run in a
// Durable Object on its own SQLite, bundled with fast-check by rolldown and run by miniflare.
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, expect, it } from "vitest";
import { bundleWorker } from "../providers/support/bundle-worker.js";

const RUNS = Number(process.env.ARBOR_MODEL_RUNS ?? 200);
// About 50 ms a sequence on the slowest backend, with room for a busy machine.
const TIMEOUT = Math.max(600_000, RUNS * 250);
let worker: Miniflare | undefined;

beforeAll(async () => {
  worker = new Miniflare({
    modules: true,
    script: await bundleWorker({
      entry: new URL("./model/model-worker.mjs", import.meta.url),
    }),
    compatibilityDate: "2025-01-01",
    compatibilityFlags: ["nodejs_compat"],
    durableObjects: { RUNS: { className: "ModelRuns", useSQLite: true } },
  });
  await worker.ready;
});
afterAll(() => worker?.dispose());

it(
  `a Durable Object agrees with the plain tree model: ${RUNS} random sequences`,
  async () => {
    const seed = Date.now() | 0;
    const response = await worker!.dispatchFetch("http://model/", {
      method: "POST",
      body: JSON.stringify({ runs: RUNS, seed }),
    });
    const reply = (await response.json()) as { ok: boolean; message?: string };
    expect(reply.message ?? "", `seed ${seed}`).toBe("");
    expect(reply.ok).toBe(true);
  },
  TIMEOUT,
);
