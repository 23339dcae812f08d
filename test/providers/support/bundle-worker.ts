import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";

const SOURCE_ROOT = new URL("../../../src/", import.meta.url);

/**
 * Bundles a worker module for workerd with rolldown, as a user's bundler would: the package's
 * entry points (`arbor-memory/session`, …) resolve to Arbor's TypeScript sources, so no build is
 * needed, and `cloudflare:*` modules stay imports for workerd to provide. `source` is the worker's
 * own code, or `entry` a file to start from.
 */
export async function bundleWorker(
  start: { entry: URL } | { source: string },
): Promise<string> {
  const virtualEntry = "\0arbor-worker-entry";
  const bundle = await rolldown({
    input: "entry" in start ? fileURLToPath(start.entry) : virtualEntry,
    platform: "browser",
    logLevel: "silent",
    external: [/^cloudflare:/],
    resolve: {
      alias: {
        "arbor-memory/session": fileURLToPath(
          new URL("session/index.ts", SOURCE_ROOT),
        ),
        "arbor-memory/testing": fileURLToPath(
          new URL("testing/index.ts", SOURCE_ROOT),
        ),
      },
      // Arbor's sources import each other as `./module.js`; the files are `.ts`.
      extensionAlias: { ".js": [".ts", ".js"] },
    },
    plugins:
      "source" in start
        ? [
            {
              name: "arbor-worker-entry",
              resolveId: (id) => (id === virtualEntry ? id : null),
              load: (id) => (id === virtualEntry ? start.source : null),
            },
          ]
        : [],
  });
  try {
    // One module, as a Worker bundler without code splitting makes it: Arbor's lazily loaded
    // code (dynamic `import()`, docs/behavior/runtime.md) is inlined.
    const { output } = await bundle.generate({
      format: "esm",
      codeSplitting: false,
    });
    const chunks = output.filter((chunk) => chunk.type === "chunk");
    if (chunks.length !== 1) {
      throw new Error(
        `[bundleWorker] expected one chunk, got ${chunks.length}`,
      );
    }
    return chunks[0]!.code;
  } finally {
    await bundle.close();
  }
}
