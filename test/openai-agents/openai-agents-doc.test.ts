// Keeps docs/openai-agents.md honest: its two blocks run as printed, one module (the second
// continues the first), with the package imports pointed at the sources, `@openai/agents` at
// `@openai/agents-core` (the part of it the page uses), the OpenAI model swapped for the scripted
// fake model of scripted-model.ts (the only change) and the database in a temporary folder.
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
const PAGE = readFileSync(join(ROOT, "docs/openai-agents.md"), "utf8");
const BLOCKS = [...PAGE.matchAll(/```ts\n([\s\S]*?)```/g)].map(
  (match) => match[1]!,
);
const ENTRIES: Record<string, string> = {
  "arbor-memory/openai-agents": "src/openai-agents/index.ts",
  "arbor-memory/session": "src/session/index.ts",
  "arbor-memory/sqlite": "src/sqlite/index.ts",
  "@openai/agents": "node_modules/@openai/agents-core/dist/index.mjs",
};
const FOLDER = join(
  ROOT,
  "node_modules/.cache",
  `arbor-openai-agents-doc-${process.pid}`,
);
mkdirSync(FOLDER, { recursive: true });
const DATA = mkdtempSync(join(tmpdir(), "arbor-openai-agents-doc-"));

afterAll(() => {
  rmSync(FOLDER, { recursive: true, force: true });
  rmSync(DATA, { recursive: true, force: true });
});

describe("docs/openai-agents.md (scripted fake model in place of OpenAI)", () => {
  it("prints two ts blocks; the set-up is the imports and at most five lines", () => {
    expect(BLOCKS).toHaveLength(2);
    const beforeRun = BLOCKS[0]!.slice(0, BLOCKS[0]!.indexOf("const result"));
    const setUp = beforeRun
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("import "));
    expect(setUp.length).toBeGreaterThan(0);
    expect(setUp.length).toBeLessThanOrEqual(5);
  });

  it("runs as printed: a turn, its usage, a branch from turn 1 and the way back", async () => {
    const code = `${BLOCKS[0]}\n${BLOCKS[1]}`;
    expect(code).toContain('model: "gpt-4.1-mini"');
    const scripted = join(ROOT, "test/openai-agents/scripted-model.ts");
    const module = code
      .replace(
        'model: "gpt-4.1-mini"',
        'model: new ScriptedModel([[say("Temples, then Nishiki.")], [say("Dotonbori at night.")]])',
      )
      .replace(
        'sqliteBackend("agent.db")',
        `sqliteBackend(${JSON.stringify(join(DATA, "agent.db"))})`,
      )
      .replace(/from\s+"([^"]+)"/g, (match, specifier: string) =>
        ENTRIES[specifier]
          ? `from ${JSON.stringify(join(ROOT, ENTRIES[specifier]))}`
          : match,
      );
    const file = join(FOLDER, "page.ts");
    writeFileSync(
      file,
      `import { ScriptedModel, say } from ${JSON.stringify(scripted)};\nimport { setTracingDisabled } from ${JSON.stringify(join(ROOT, ENTRIES["@openai/agents"]!))};\nsetTracingDisabled(true);\n${module}\nexport { session };`,
    );
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    let printed: unknown[][];
    let session: import("../../src/openai-agents/index.js").ArborSession;
    try {
      ({ session } = (await import(file)) as { session: typeof session });
      printed = log.mock.calls.map((call) => [...call]);
    } finally {
      log.mockRestore();
    }
    expect(printed[0]).toEqual(["Temples, then Nishiki."]);
    expect(printed[1]).toEqual([["1: Plan a day in Kyoto"]]);
    expect(printed[2]).toEqual([
      { inputTokens: 300, outputTokens: 20, totalTokens: 320 },
    ]);
    // Back on the Kyoto branch; the Osaka branch stays in the tree beside it.
    expect((await session.listTurns()).map((turn) => turn.text)).toEqual([
      "Plan a day in Kyoto",
    ]);
    expect(await (await session.arborSession()).countMessages()).toBe(4);
  });
});
