// Shared setup of the studio tests: the studio built into a temporary folder (so the tests never
// read dist/) and a SQLite file per server. The screenshots of docs/studio come from
// scripts/studio-screenshots.mjs, not from the tests.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** A temporary folder and its removal. */
export async function temporaryFolder(): Promise<{
  path: string;
  remove: () => Promise<void>;
}> {
  const path = await mkdtemp(join(tmpdir(), "arbor-studio-test-"));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Builds the studio with scripts/build-studio.mjs into `outDir`. */
export function buildStudioInto(outDir: string): void {
  execFileSync(
    process.execPath,
    [join(ROOT, "scripts/build-studio.mjs"), "--out", outDir],
    {
      cwd: ROOT,
      stdio: "pipe",
    },
  );
}

/** The visible text of the page's main area. */
export async function mainText(page: Page): Promise<string> {
  return (await page.locator("main").innerText()).replace(/\s+/g, " ");
}
