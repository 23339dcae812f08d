// Keeps the README's quick start honest: its block runs as printed (on a temporary SQLite file
// instead of ./memory.db, its package imports pointed at the sources), and each
// `session.search(…)` line of it returns what its comment says.
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const README = readFileSync(join(ROOT, "README.md"), "utf8");

const ENTRIES: Record<string, string> = {
  "arbor-memory/session": "src/session/index.ts",
  "arbor-memory/sqlite": "src/sqlite/index.ts",
};

// Inside the repository, so the block's imports resolve from its node_modules.
const FOLDER = join(ROOT, "node_modules/.cache", `arbor-readme-${process.pid}`);
const DATA = mkdtempSync(join(tmpdir(), "arbor-readme-"));

afterAll(() => {
  rmSync(FOLDER, { recursive: true, force: true });
  rmSync(DATA, { recursive: true, force: true });
});

/** The ```ts block under "## Quick start", as printed. */
function quickStart(): string {
  const start = README.indexOf("\n## Quick start\n");
  const block = /```ts\n([\s\S]*?)```/.exec(README.slice(start));
  if (start < 0 || !block) throw new Error("README.md has no quick start");
  return block[1]!;
}

describe("README quick start", () => {
  it("runs as printed, and its searches find what their comments say", async () => {
    const block = quickStart();
    const searches = [...block.matchAll(/^await (session\.search\(.*\));/gmu)];
    expect(searches.map((match) => match[1])).toEqual([
      'session.search("when do we deploy on friday?")',
      'session.search("friday deploy", { match: "all" })',
    ]);
    const code =
      block
        .replace(
          'openSqlite("memory.db")',
          () => `openSqlite(${JSON.stringify(join(DATA, "memory.db"))})`,
        )
        .replace(/from\s+"([^"]+)"/g, (match, specifier: string) =>
          ENTRIES[specifier]
            ? `from ${JSON.stringify(join(ROOT, ENTRIES[specifier]))}`
            : match,
        ) +
      searches
        .map(
          (match) => `\nconsole.log((await ${match[1]}).map((hit) => hit.id));`,
        )
        .join("");
    const file = join(FOLDER, "quick-start.ts");
    mkdirSync(FOLDER, { recursive: true });
    writeFileSync(file, code);
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    let printed: unknown[][];
    try {
      await import(file);
      printed = log.mock.calls.map((call) => [...call]);
    } finally {
      log.mockRestore();
    }
    const [ranked, all] = printed.map((line) => line[0] as string[]);
    // "ranked: messages with both words first": the question holds both; both answers say
    // "Friday", and "on friday" read as a time must not drop them.
    expect(ranked![0]).toBe("u1");
    expect([...ranked!].sort()).toEqual(["a1", "a1b", "u1"]);
    // "every term must match": only the question holds both.
    expect(all).toEqual(["u1"]);
  });
});
