// Shared setup of the studio tests: the studio built into a temporary folder (so the tests never
// read dist/), a SQLite file per server, screenshots only when ARBOR_STUDIO_SCREENSHOTS=1.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SCREENSHOTS = join(ROOT, "docs/studio");

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

/** Saves docs/studio/<name>.png when ARBOR_STUDIO_SCREENSHOTS=1; otherwise does nothing. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.ARBOR_STUDIO_SCREENSHOTS !== "1") return;
  await page.screenshot({
    path: join(SCREENSHOTS, `${name}.png`),
    fullPage: false,
  });
}

/** The visible text of the page's main area. */
export async function mainText(page: Page): Promise<string> {
  return (await page.locator("main").innerText()).replace(/\s+/g, " ");
}
