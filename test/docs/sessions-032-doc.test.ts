// Keeps docs/sessions-032.md honest: every ```ts block on the page runs as printed. The Node
// blocks run as modules with their package imports pointed at the sources, and what they print
// is checked against the values their comments state; the Durable Object block is transpiled
// and run as a real Durable Object in workerd (through miniflare); the PostgreSQL block runs on a
// throwaway database (skipped without ARBOR_TEST_PG_URL, failing under CI=true).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import ts from "typescript";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  createTestDatabase,
  describePostgres,
} from "../providers/postgres-database.js";
import { SRC, transpileGraph } from "../providers/support/transpile-graph.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PAGE = readFileSync(join(ROOT, "docs/sessions-032.md"), "utf8");

/** The page's imports of the package, pointed at the sources. */
const ENTRIES: Record<string, string> = {
  "arbor-memory/session": "src/session/index.ts",
  "arbor-memory/sessions": "src/sessions/index.ts",
  "arbor-memory/sqlite": "src/sqlite/index.ts",
};

// Inside the repository, so the blocks' other imports (`pg`) resolve from its node_modules.
const FOLDER = join(
  ROOT,
  "node_modules/.cache",
  `arbor-sessions-doc-${process.pid}`,
);
mkdirSync(FOLDER, { recursive: true });

describe("docs/sessions-032.md", () => {
  it("prints one ts block per backend", () => {
    expect(PAGE.match(/```ts\n/g)).toHaveLength(4);
  });

  it("the SQLite block runs as printed and prints what its comments say", async () => {
    const printed = await runModule(
      "sqlite",
      codeBlockUnder("### On Node with SQLite"),
    );
    expect(printed[0]).toEqual(["append", ""]);
    expect(printed).toContainEqual([true]);
    expect(printed).toContainEqual([false]);
    expect(printed).toContainEqual([["u1", "a1"]]);
    // The active branch is the newest row's: a1, leaf first.
    expect(
      printed.filter(
        (line) => line.length === 1 && typeof line[0] === "string",
      ),
    ).toEqual([["a1"], ["u1"]]);
    const recent = printed.find((line) => line.length === 3)!;
    expect(recent.slice(0, 2)).toEqual([2, false]);
    const hits = printed.find(
      (line) => Array.isArray(line[0]) && (line[0] as { id?: string }[])[0]?.id,
    );
    expect((hits![0] as { id: string }[]).map((hit) => hit.id)).toEqual(["u1"]);
  });

  it("the in-memory block runs as printed and mirrors the append", async () => {
    const printed = await runModule("memory", codeBlockUnder("### In memory"));
    expect(printed).toEqual([[["u1"]]]);
  });

  it("the Durable Object block runs as a Durable Object in workerd", async () => {
    const block = codeBlockUnder("### In a Durable Object");
    const code = ts
      .transpileModule(block, {
        compilerOptions: {
          module: ts.ModuleKind.ESNext,
          target: ts.ScriptTarget.ES2022,
        },
      })
      .outputText.replace('"arbor-memory/sessions"', '"./sessions/index.js"');
    const worker = new Miniflare({
      modules: [
        {
          type: "ESModule",
          path: "/worker/index.js",
          contents: `export { ConversationObject } from "./doc.js";
export default {
  fetch(request, env) {
    return env.CONVERSATION.get(env.CONVERSATION.idFromName("doc")).fetch(request);
  },
};`,
        },
        { type: "ESModule", path: "/worker/doc.js", contents: code },
        ...[...transpileGraph(new URL("sessions/index.ts", SRC))].map(
          ([path, contents]) => ({
            type: "ESModule" as const,
            path: `/worker/${path}`,
            contents,
          }),
        ),
      ],
      modulesRoot: "/worker",
      compatibilityDate: "2025-01-01",
      durableObjects: {
        CONVERSATION: { className: "ConversationObject", useSQLite: true },
      },
    });
    try {
      const post = async (text: string) =>
        (await (
          await worker.dispatchFetch("http://localhost/", {
            method: "POST",
            body: text,
          })
        ).json()) as {
          inserted: boolean;
          id: string;
          ids: string[];
        };
      const first = await post("Hello");
      const second = await post("Again");
      expect(first.inserted).toBe(true);
      expect(first.ids).toEqual([first.id]);
      expect(second.ids).toEqual([first.id, second.id]);
    } finally {
      await worker.dispose();
    }
  }, 60_000);
});

describePostgres("docs/sessions-032.md on PostgreSQL", () => {
  it("the PostgreSQL block runs as printed", async () => {
    const database = await createTestDatabase();
    const previous = process.env.DATABASE_URL;
    process.env.DATABASE_URL = database.url;
    try {
      expect(
        await runModule("postgres", codeBlockUnder("### PostgreSQL")),
      ).toEqual([[1]]);
    } finally {
      process.env.DATABASE_URL = previous;
      await database.drop();
    }
  }, 60_000);
});

afterAll(() => rmSync(FOLDER, { recursive: true, force: true }));

// --- Internal helpers ---

/** Writes the block as a module, imports it, and returns the arguments of each `console.log`. */
async function runModule(name: string, code: string): Promise<unknown[][]> {
  const file = join(FOLDER, `${name}.ts`);
  writeFileSync(file, pointImports(code));
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  try {
    await import(file);
    return log.mock.calls.map((call) => [...call]);
  } finally {
    log.mockRestore();
  }
}

/** The first ```ts block after `heading`, as printed. */
function codeBlockUnder(heading: string): string {
  const start = PAGE.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/sessions-032.md has no "${heading}"`);
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
