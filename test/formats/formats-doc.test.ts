// Keeps docs/formats.md honest: every ```ts block runs with its package imports pointed at the
// sources (and the import example's file name at the ChatGPT fixture), and prints what its
// comments say.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { FIXTURES } from "./support.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PAGE = readFileSync(join(ROOT, "docs/formats.md"), "utf8");
const BLOCKS = [...PAGE.matchAll(/```ts\n([\s\S]*?)```/g)].map(
  (match) => match[1]!,
);
const ENTRIES: Record<string, string> = {
  "arbor-memory/formats": "src/formats/index.ts",
  "arbor-memory/session": "src/session/index.ts",
  "arbor-memory/sqlite": "src/sqlite/index.ts",
};
const FOLDER = join(
  ROOT,
  "node_modules/.cache",
  `arbor-formats-doc-${process.pid}`,
);
mkdirSync(FOLDER, { recursive: true });

describe("docs/formats.md", () => {
  it("has three ts blocks", () => {
    expect(BLOCKS).toHaveLength(3);
  });

  it("the import example imports the ChatGPT export as its comments say", async () => {
    const code = BLOCKS[0]!.replace(
      'readFileSync("conversations.json"',
      `readFileSync(${JSON.stringify(join(FIXTURES, "chatgpt-conversations.json"))}`,
    );
    const printed = await runModule("import", code);
    expect(printed[0]).toEqual([["chatgpt", "chatgpt"]]);
    expect(printed.slice(1, 4)).toEqual([
      ["0/10 messages"],
      ["8/10 messages"],
      ["10/10 messages"],
    ]);
    expect(printed[4]).toEqual([["Lisbon weekend plan", "Regex for dates"]]);
    expect(printed[5]).toEqual([["u-0001", "a-0002", "u-0003", "a-0006"]]);
  });

  it("the export example round-trips and prints the transcript", async () => {
    const printed = await runModule("export", BLOCKS[1]!);
    expect(String(printed[0]![0])).toMatch(
      /^\{"type":"session","format":"arbor.jsonl","version":1,"sessionId":/,
    );
    expect(printed[1]).toEqual(["a1", 3]);
    expect(printed[2]).toEqual(["snapshot"]);
    expect(printed[3]).toEqual([
      "# Tea\n\n## User\n\nGreen or black?\n\n## Assistant\n\nGreen.\n",
    ]);
  });

  it("the error example prints the code and the line", async () => {
    const printed = await runModule("errors", BLOCKS[2]!);
    expect(printed).toEqual([
      [
        "INVALID_IMPORT",
        'line 3: the parent "gone" of "a1" is not in the file (a trimmed file? import it with lenient to attach such entries to the root)',
      ],
    ]);
  });
});

async function runModule(name: string, code: string): Promise<unknown[][]> {
  const file = join(FOLDER, `${name}.ts`);
  writeFileSync(
    file,
    code.replace(/from\s+"([^"]+)"/g, (match, specifier: string) =>
      ENTRIES[specifier]
        ? `from ${JSON.stringify(join(ROOT, ENTRIES[specifier]))}`
        : match,
    ),
  );
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  try {
    await import(file);
    return log.mock.calls.map((call) => [...call]);
  } finally {
    log.mockRestore();
  }
}
