// Keeps docs/api (the committed API reference) in step with the TSDoc comments: regenerates it
// into a temporary folder with the repository's typedoc.json and compares every file.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const COMMITTED = join(ROOT, "docs/api");
const TYPEDOC = join(ROOT, "node_modules/typedoc/bin/typedoc");
const STALE = "docs/api is stale: run `npm run docs:api` and commit the result";

describe("API reference (docs/api)", () => {
  let output: string | undefined;

  afterAll(async () => {
    if (output) await rm(output, { recursive: true, force: true });
  });

  it("matches what `npm run docs:api` generates", async () => {
    output = await mkdtemp(join(tmpdir(), "arbor-api-"));
    await promisify(execFile)(process.execPath, [TYPEDOC, "--out", output], {
      cwd: ROOT,
    });
    const generated = await listFiles(output);
    const committed = await listFiles(COMMITTED).catch(() => []);
    expect(committed, STALE).toEqual(generated);
    for (const file of generated) {
      const [fresh, stored] = await Promise.all([
        readFile(join(output, file), "utf8"),
        readFile(join(COMMITTED, file), "utf8"),
      ]);
      expect(stored, `${STALE} (${file} differs)`).toBe(fresh);
    }
  }, 120_000);
});

// --- Internal helpers ---

/** Every file below `folder`, as sorted paths relative to it. */
async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, {
    recursive: true,
    withFileTypes: true,
  });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)))
    .sort();
}
