// The `arbor-memory/session` bundle a Worker ships stays small (docs/behavior/runtime.md): built
// from dist/ by rolldown for the browser platform and minified, as `npm run size` measures it.
// `npm test` builds first; run `npm run build` before running this file alone.
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without declarations
import { measureSessionBundles } from "../../scripts/bundle-size.mjs";

interface BundleSize {
  name: string;
  minifiedBytes: number;
  gzippedBytes: number;
  budgetBytes: number | null;
  includesZod: boolean;
}

describe("session bundle size", () => {
  it("the Worker bundle is at most 150 KB minified and in one file at most 200 KB; the whole entry is measured; none carries zod", async () => {
    const sizes = (await measureSessionBundles()) as BundleSize[];
    const byName = new Map(sizes.map((size) => [size.name, size]));
    const worker = byName.get("worker")!;

    expect(worker.minifiedBytes).toBeLessThanOrEqual(150 * 1024);
    expect(byName.get("worker-one-file")!.minifiedBytes).toBeLessThanOrEqual(
      200 * 1024,
    );
    expect([...byName.keys()].sort()).toEqual([
      "entry",
      "worker",
      "worker-one-file",
    ]);
    for (const size of sizes)
      if (size.budgetBytes !== null)
        expect(
          size.minifiedBytes,
          `${size.name} over its budget`,
        ).toBeLessThanOrEqual(size.budgetBytes);
    for (const size of sizes) {
      expect(size.includesZod, `${size.name} bundles zod`).toBe(false);
      expect(size.gzippedBytes).toBeLessThan(size.minifiedBytes);
    }
  });
});
