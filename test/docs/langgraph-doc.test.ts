// Keeps docs/langgraph.md honest: its whole-agent block runs as printed, with a scripted fake
// chat model (FakeListChatModel of @langchain/core) in place of ChatOpenAI, in a temporary folder
// (the block opens ./agent.db), and prints what its comments say.
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
const PAGE = readFileSync(join(ROOT, "docs/langgraph.md"), "utf8");

/** The page's imports of the package, pointed at the sources. */
const ENTRIES: Record<string, string> = {
  "arbor-memory/langgraph": "src/langgraph/index.ts",
  "arbor-memory/sqlite": "src/sqlite/index.ts",
};

/** The one change to the printed block: the model. */
const REAL_MODEL_IMPORT = 'import { ChatOpenAI } from "@langchain/openai";';
const REAL_MODEL = 'new ChatOpenAI({ model: "gpt-4o-mini" })';
const SCRIPTED_MODEL_IMPORT =
  'import { FakeListChatModel } from "@langchain/core/utils/testing";';
const SCRIPTED_MODEL =
  'new FakeListChatModel({ responses: ["Lisbon is lovely in May."] })';

// Inside the repository, so the block's other imports resolve from its node_modules.
const FOLDER = join(
  ROOT,
  "node_modules/.cache",
  `arbor-langgraph-doc-${process.pid}`,
);
const WORKING = mkdtempSync(join(tmpdir(), "arbor-langgraph-doc-"));
afterAll(() => {
  rmSync(FOLDER, { recursive: true, force: true });
  rmSync(WORKING, { recursive: true, force: true });
});

describe("docs/langgraph.md", () => {
  it("the whole-agent block runs as printed (fake scripted model) and prints what its comments say", async () => {
    const block = codeBlockUnder("## A whole agent");
    expect(block).toContain(REAL_MODEL_IMPORT);
    expect(block).toContain(REAL_MODEL);
    const code = pointImports(
      block
        .replace(REAL_MODEL_IMPORT, SCRIPTED_MODEL_IMPORT)
        .replace(REAL_MODEL, SCRIPTED_MODEL),
    );
    mkdirSync(FOLDER, { recursive: true });
    const file = join(FOLDER, "whole-agent.ts");
    writeFileSync(file, code);
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const cwd = process.cwd();
    process.chdir(WORKING);
    let printed: unknown[];
    try {
      await import(file);
      printed = log.mock.calls.map((call) => call[0] as unknown);
    } finally {
      process.chdir(cwd);
      log.mockRestore();
    }
    expect(printed).toEqual([["diet"], ["user", "assistant"], ["trip-42"]]);
    // The comments print the same values.
    expect(commentedValues(block)).toEqual(printed);
  });
});

// --- Internal helpers ---

/** The first ```ts block after `heading`, as printed. */
function codeBlockUnder(heading: string): string {
  const start = PAGE.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/langgraph.md has no "${heading}"`);
  const block = /```ts\n([\s\S]*?)```/.exec(PAGE.slice(start));
  if (!block) throw new Error(`No ts code block under "${heading}"`);
  return block[1]!;
}

function pointImports(code: string): string {
  return code.replace(/from\s+"([^"]+)"/g, (match, specifier: string) =>
    ENTRIES[specifier]
      ? `from ${JSON.stringify(join(ROOT, ENTRIES[specifier]))}`
      : match,
  );
}

/** The values the block's `console.log(...); // value` comments state. */
function commentedValues(code: string): unknown[] {
  return [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map(
    (match) => JSON.parse(match[1]!) as unknown,
  );
}
