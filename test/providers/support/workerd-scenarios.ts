// Runs named scenarios inside workerd: the worker at `entry` (bundled by rolldown) exports a
// Durable Object class that runs the scenario named in a POST body and answers
// `{ ok, message? }`. One vitest case per scenario, so a failure reports its own name.
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker } from "./bundle-worker.js";

export function describeWorkerdScenarios(options: {
  title: string;
  entry: URL;
  className: string;
  scenarios: readonly string[];
}): void {
  let worker: Miniflare | undefined;

  beforeAll(async () => {
    worker = new Miniflare({
      modules: true,
      script: await bundleWorker({ entry: options.entry }),
      compatibilityDate: "2025-01-01",
      compatibilityFlags: ["nodejs_compat"],
      durableObjects: {
        RUNS: { className: options.className, useSQLite: true },
      },
    });
    await worker.ready;
  }, 120_000);
  afterAll(() => worker?.dispose());

  describe(options.title, () => {
    for (const scenario of options.scenarios) {
      it(
        scenario,
        async () => {
          const response = await worker!.dispatchFetch("http://scenario/", {
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
}
