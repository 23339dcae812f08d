// Guards what makes the fourth backend a proof: its files import Arbor through the package's
// public entries only (`arbor-memory/...`), never a path into the sources, so what it needs is
// what a third-party store gets.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const HERE = import.meta.dirname;
const BACKEND_FILES = readdirSync(HERE).filter(
  (file) => file.endsWith(".ts") && !file.endsWith(".test.ts"),
);

/** Every module specifier a file imports or re-exports. */
function specifiers(source: string): string[] {
  return [
    ...source.matchAll(/(?:^|\s)(?:from|import)\s*\(?\s*"([^"\s]+)"/gmu),
  ].map((match) => match[1]!);
}

describe("the fourth backend's imports", () => {
  it("has its files (one per concept)", () => {
    expect(BACKEND_FILES.length).toBeGreaterThanOrEqual(8);
  });

  for (const file of BACKEND_FILES)
    it(`${file} imports public entries and its own files only`, () => {
      const source = readFileSync(join(HERE, file), "utf8");
      const found = specifiers(source);
      expect(found.length).toBeGreaterThan(0);
      for (const specifier of found)
        expect(specifier, `${file}: ${specifier}`).toMatch(
          /^(arbor-memory\/[a-z-]+|\.\/kv-[a-z-]+\.js)$/u,
        );
    });

  it("the runners import no Arbor source either", () => {
    for (const file of readdirSync(HERE).filter((name) =>
      name.endsWith(".test.ts"),
    ))
      for (const specifier of specifiers(
        readFileSync(join(HERE, file), "utf8"),
      ))
        expect(specifier, `${file}: ${specifier}`).not.toMatch(/\/src\//u);
  });
});
