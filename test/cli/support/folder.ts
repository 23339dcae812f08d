import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A temporary folder, removed by the returned function. */
export function temporaryFolder(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), "arbor-cli-"));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
