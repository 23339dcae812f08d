// Arbor's sources transpiled to plain ESM for child processes (no build needed, no bundler):
// written inside the repository, so the transpiled openSqlite() resolves better-sqlite3.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  SRC,
  transpileGraph,
} from "../../providers/support/transpile-graph.js";

/** Transpiles the graphs of `entries` (paths under src/) into a fresh folder; returns it and a cleanup. */
export function transpileForChildren(entries: readonly string[]): {
  modules: string;
  remove: () => void;
} {
  const cache = fileURLToPath(
    new URL("../../../node_modules/.cache/", import.meta.url),
  );
  mkdirSync(cache, { recursive: true });
  const modules = mkdtempSync(join(cache, "arbor-trust-"));
  for (const entry of entries) {
    for (const [path, contents] of transpileGraph(new URL(entry, SRC))) {
      mkdirSync(dirname(join(modules, path)), { recursive: true });
      writeFileSync(join(modules, path), contents);
    }
  }
  return {
    modules,
    remove: () => rmSync(modules, { recursive: true, force: true }),
  };
}
