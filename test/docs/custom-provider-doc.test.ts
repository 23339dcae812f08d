// Keeps docs/custom-providers.md honest: the provider and the conformance factory are taken from
// the page exactly as printed, written to a temporary folder and run through the whole suite.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PAGE = readFileSync(join(ROOT, "docs/custom-providers.md"), "utf8");

/** The page's imports of the package, pointed at the sources. */
const ENTRIES: Record<string, string> = {
  "arbor-memory/session": "src/session/index.ts",
  "arbor-memory/utils": "src/utils/index.ts",
  "arbor-memory/testing": "src/testing/index.ts",
};

const providerCode = codeBlockUnder("## A minimal provider");
const factoryCode = codeBlockUnder("## Running the conformance suite on it");
const folder = mkdtempSync(join(tmpdir(), "arbor-custom-provider-doc-"));
const providerFile = join(folder, "map-session-provider.ts");
const factoryFile = join(folder, "map-provider.test-factory.ts");
writeFileSync(providerFile, pointImports(providerCode));
writeFileSync(
  factoryFile,
  // The runner's functions come from this file, so the printed block registers its cases here.
  pointImports(factoryCode).replace(
    /import\s*\{([^}]*)\}\s*from\s*"vitest";/,
    "const {$1} = (globalThis as any).__arborDocsVitest;",
  ),
);

(globalThis as Record<string, unknown>).__arborDocsVitest = {
  afterAll,
  beforeAll,
  describe,
  expect,
  it,
};

describe("docs/custom-providers.md", () => {
  it("prints a provider class and a factory that calls runProviderConformance", () => {
    expect(providerCode).toContain("implements SessionProvider");
    expect(factoryCode).toContain("runProviderConformance(");
  });
});

await import(factoryFile);

// --- Internal helpers ---

/** The first ```ts block after `heading`, as printed. */
function codeBlockUnder(heading: string): string {
  const start = PAGE.indexOf(`\n${heading}\n`);
  if (start < 0)
    throw new Error(`docs/custom-providers.md has no "${heading}"`);
  const block = /```ts\n([\s\S]*?)```/.exec(PAGE.slice(start));
  if (!block) throw new Error(`No ts code block under "${heading}"`);
  return block[1]!;
}

/** Rewrites package imports to the sources, and the provider import to the extracted file. */
function pointImports(code: string): string {
  return code.replace(/from\s+"([^"]+)"/g, (match, specifier: string) => {
    if (ENTRIES[specifier])
      return `from ${JSON.stringify(join(ROOT, ENTRIES[specifier]))}`;
    if (specifier.endsWith("/map-session-provider.js"))
      return `from ${JSON.stringify(providerFile)}`;
    return match;
  });
}
