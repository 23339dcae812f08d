import { readFileSync } from "node:fs";
import ts from "typescript";

/** Arbor's source root; module paths are given relative to it. */
export const SRC = new URL("../../../src/", import.meta.url);

/**
 * The runtime module graph of a source file, transpiled file by file to plain ESM, keyed by its
 * path relative to `src/` (`backends/sql/index.js`, …). Only runtime imports remain
 * after transpiling, so only those are followed. Lets a test run the sources in workerd or in a
 * worker thread without a bundler.
 */
export function transpileGraph(entry: URL): Map<string, string> {
  const modules = new Map<string, string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    const relative = file.pathname
      .slice(SRC.pathname.length)
      .replace(/\.ts$/, ".js");
    if (modules.has(relative)) continue;
    const output = ts.transpileModule(readFileSync(file, "utf8"), {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
    }).outputText;
    modules.set(relative, output);
    for (const match of output.matchAll(
      /(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)\.js["']/g,
    )) {
      pending.push(new URL(`${match[1]}.ts`, file));
    }
  }
  return modules;
}
