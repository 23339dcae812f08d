// Installs the packed package the way a user does, into a fresh project with only typescript and
// none of the optional peers, then type-checks a file that uses every entry point (strict,
// skipLibCheck off) and checks that each optional peer is asked for by name when it is missing.
// It also checks the tarball as a user meets it: the root entry, the ES-modules-only answer to
// require(), no dangling source maps, no screenshots or generated API docs, the repository links.
// `npm test` builds first; run `npm run build` before running this file alone.
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const scratch = mkdtempSync(join(tmpdir(), "arbor-consumer-"));
const project = join(scratch, "project");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Uses every entry point, passing and receiving values through the published types. */
const CONSUMER_SOURCE = `
import { isArborError, InMemorySessionProvider, Session, SessionManager, type SessionMessage } from "arbor-memory/session";
import { openSqlite, type SqliteHandle } from "arbor-memory/sqlite";
import { createCompactFunction, estimateMessageTokens, keepLastMessages } from "arbor-memory/utils";
import { applyCompactions, COMPACTION_PREFIX } from "arbor-memory/utils/compaction-helpers";
import {
  readModelEnv,
  runTurn,
  SessionAgent,
  summarizeWith,
  type AgentLanguageModel,
  type AgentToolSet,
  type TurnResult,
} from "arbor-memory/agent";
import { FileSkillProvider } from "arbor-memory/fs";
import { exactTokenCounter } from "arbor-memory/tokenizer";
import { DEFAULT_CAPABILITIES, runProviderConformance, type ConformanceApi } from "arbor-memory/testing";

export async function useEverything(api: ConformanceApi): Promise<string> {
  const store: SqliteHandle = openSqlite("memory.db");
  const message: SessionMessage = { id: "m1", role: "user", parts: [{ type: "text", text: "Hi" }] };
  const session = Session.create(store)
    .withContext("memory", { description: "Facts", maxTokens: 500 })
    .withContext("skills", { provider: new FileSkillProvider("./skills") })
    .onCompaction(createCompactFunction({ summarize: async (prompt: string) => prompt.slice(0, 10) }))
    .compactAfter(10_000, { tokenCounter: exactTokenCounter() });
  await session.appendMessage(message);
  const history: SessionMessage[] = applyCompactions(await session.getHistory(), []);
  const recent = await keepLastMessages(2)(history);
  const tokens: number = estimateMessageTokens(recent);
  const manager = SessionManager.create(store);
  const inMemory = Session.create(new InMemorySessionProvider());

  // A model as any AI SDK provider returns it; the structural type accepts it.
  const model: AgentLanguageModel = { specificationVersion: "v3", provider: "fake", modelId: "fake-1" };
  const tools: AgentToolSet = { clock: { description: "Now", inputSchema: {}, execute: async () => Date.now() } };
  const agent = new SessionAgent({ session, model, tools, maxSteps: 2 });
  const turn: TurnResult = await agent.run("Hello", {
    onChunk(chunk) {
      if (chunk.type === "text-delta") console.log(chunk["delta"]);
    },
  });
  const again = await runTurn({ session: inMemory, model: "provider/model-id", input: "Hi" });
  const summarize: (prompt: string) => Promise<string> = summarizeWith(model, { maxOutputTokens: 100 });
  const settings = readModelEnv({});
  runProviderConformance(
    {
      name: "memory",
      capabilities: DEFAULT_CAPABILITIES,
      create: () => ({ session: () => new InMemorySessionProvider() }),
    },
    api,
  );
  try {
    store.close();
  } catch (error) {
    if (isArborError(error)) return error.code;
  }
  return [tokens, turn.finishReason, again.steps.length, settings, manager, summarize, COMPACTION_PREFIX].join();
}
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    skipLibCheck: false,
    module: "NodeNext",
    moduleResolution: "NodeNext",
    target: "ES2022",
    noEmit: true,
  },
  include: ["consumer.ts"],
};

beforeAll(() => {
  const packed = execFileSync(
    npm,
    ["pack", "--silent", "--pack-destination", scratch],
    { cwd: root, encoding: "utf8" },
  )
    .trim()
    .split("\n")
    .at(-1)!;
  const tarball = join(scratch, packed);
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  execFileSync(
    npm,
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      tarball,
      "typescript@5.9.3",
    ],
    { cwd: project, encoding: "utf8" },
  );
  writeFileSync(join(project, "consumer.ts"), CONSUMER_SOURCE);
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify(TSCONFIG));
}, 120_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the packed package in a project with only typescript", () => {
  it("installs without the optional peers, so nothing is compiled", () => {
    const installed = readdirSync(join(project, "node_modules"));
    expect(installed).toContain("arbor-memory");
    for (const peer of ["better-sqlite3", "ai", "gpt-tokenizer", "pg"]) {
      expect(installed, peer).not.toContain(peer);
    }
    expect(existsSync(join(project, "node_modules", "@ai-sdk"))).toBe(false);
    expect(existsSync(join(project, "node_modules", "@langchain"))).toBe(false);
    expect(existsSync(join(project, "node_modules", "@types"))).toBe(false);
  });

  it("type-checks a file using every entry point with strict and skipLibCheck off", () => {
    const tsc = spawnSync(
      process.execPath,
      [join(project, "node_modules", "typescript", "bin", "tsc"), "-p", "."],
      { cwd: project, encoding: "utf8" },
    );
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  });

  it.each([
    [
      "arbor-memory/sqlite",
      'const { openSqlite } = await import("arbor-memory/sqlite"); openSqlite(":memory:");',
      "npm install better-sqlite3@12",
    ],
    [
      "arbor-memory/agent",
      'await import("arbor-memory/agent");',
      "npm install ai",
    ],
    [
      "arbor-memory/tokenizer",
      'await import("arbor-memory/tokenizer");',
      "npm install gpt-tokenizer",
    ],
    [
      // The saver extends LangGraph's class at module load: the import itself must name the peers.
      "arbor-memory/langgraph",
      'await import("arbor-memory/langgraph");',
      "npm install @langchain/langgraph-checkpoint @langchain/core",
    ],
    [
      "arbor-memory/ai-sdk",
      'const { SessionManager } = await import("arbor-memory/session"); const { createChatHandler } = await import("arbor-memory/ai-sdk"); await createChatHandler({ manager: SessionManager.inMemory(), respond: () => ({}) }).send(new Request("http://x/api/chat", { method: "POST", body: "{}" }), { ownerId: "o" });',
      "npm install ai",
    ],
  ])(
    "%s names the missing optional peer and its install command",
    (_, source, command) => {
      const run = spawnSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `try { ${source} } catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })); }`,
        ],
        { cwd: project, encoding: "utf8" },
      );
      expect(run.stderr).toBe("");
      const failure = JSON.parse(run.stdout) as {
        code: string;
        message: string;
      };
      expect(failure.code).toBe("MISSING_DEPENDENCY");
      expect(failure.message).toContain(command);
    },
  );

  // The README is the npm page: its relative links must point at files in the tarball.
  it("ships every file the README links to", () => {
    const installed = join(project, "node_modules", "arbor-memory");
    const readme = readFileSync(join(installed, "README.md"), "utf8");
    const targets = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
      .map((match) => match[1]!)
      .filter((target) => !/^[a-z]+:/.test(target));
    expect(targets).toContain("examples/quickstart.mjs");
    const missing = targets.filter(
      (target) => !existsSync(join(installed, target)),
    );
    expect(missing).toEqual([]);
  });

  it("installs the arbor bin, which answers --help and names better-sqlite3 when it is missing", () => {
    const bin = join(project, "node_modules", ".bin", "arbor");
    const help = spawnSync(bin, ["--help"], { cwd: project, encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("serve");
    expect(help.stdout).toContain("import");
    // An existing (empty) database file, so the command gets as far as opening it.
    const database = join(project, "empty.db");
    writeFileSync(database, "");
    const list = spawnSync(bin, ["sessions", "list", "--db", database], {
      cwd: project,
      encoding: "utf8",
    });
    expect(list.status).toBe(1);
    expect(list.stderr).toContain("better-sqlite3");
  });

  it('is imported as "arbor-memory": the same entry as arbor-memory/session', () => {
    const run = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const root = await import("arbor-memory"); const session = await import("arbor-memory/session");
        console.log(JSON.stringify({ same: root === session, keys: Object.keys(root).length, session: typeof root.Session }));`,
      ],
      { cwd: project, encoding: "utf8" },
    );
    expect(run.stderr).toBe("");
    const answer = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(answer).toMatchObject({ same: true, session: "function" });
    expect(answer["keys"]).toBeGreaterThan(10);
  });

  it.each(["arbor-memory", "arbor-memory/session", "arbor-memory/server"])(
    "require(%j) says the package is ES modules only and to use import",
    (entry) => {
      const run = spawnSync(
        process.execPath,
        [
          "--input-type=commonjs",
          "-e",
          `try { require(${JSON.stringify(entry)}); console.log("{}"); } catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })); }`,
        ],
        { cwd: project, encoding: "utf8" },
      );
      expect(run.stderr).toBe("");
      const failure = JSON.parse(run.stdout) as {
        code?: string;
        message?: string;
      };
      expect(failure.code).toBe("ERR_REQUIRE_ESM");
      expect(failure.message).toContain("ES module package");
      expect(failure.message).toContain('await import("arbor-memory/session")');
    },
  );

  it("ships no source map or sourceMappingURL pointing at a missing file, and no screenshots or generated API docs", () => {
    const installed = join(project, "node_modules", "arbor-memory");
    const files = readdirSync(installed, {
      recursive: true,
      encoding: "utf8",
    }).map((file) => file.split(sep).join("/"));
    const dangling: string[] = [];
    for (const file of files) {
      const full = join(installed, file);
      if (file.endsWith(".map")) {
        const map = JSON.parse(readFileSync(full, "utf8")) as {
          sources?: string[];
          sourceRoot?: string;
        };
        for (const source of map.sources ?? []) {
          const target = join(dirname(full), map.sourceRoot ?? "", source);
          if (!existsSync(target)) dangling.push(`${file} -> ${source}`);
        }
      } else if (/\.(c|m)?js$/.test(file)) {
        const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(
          readFileSync(full, "utf8"),
        )?.[1];
        if (url && !url.startsWith("data:")) {
          if (!existsSync(join(dirname(full), url)))
            dangling.push(`${file} -> ${url}`);
        }
      }
    }
    expect(dangling).toEqual([]);
    expect(files.filter((file) => /\.png$/i.test(file))).toEqual([]);
    expect(files.filter((file) => file.startsWith("docs/api"))).toEqual([]);
    // The prose docs do ship: they are what the README and the errors link to.
    expect(files).toContain("docs/errors.md");
  });

  it("names the repository, homepage and issue tracker", () => {
    const manifest = JSON.parse(
      readFileSync(
        join(project, "node_modules", "arbor-memory", "package.json"),
        "utf8",
      ),
    ) as Record<string, unknown>;
    expect(manifest["repository"]).toMatchObject({
      url: expect.stringMatching(/^git\+https:\/\/github\.com\//),
    });
    expect(manifest["homepage"]).toMatch(/^https:\/\//);
    expect(manifest["bugs"]).toMatchObject({
      url: expect.stringMatching(/^https:\/\/.*\/issues$/),
    });
  });

  it("loads the entries that need no optional peer", () => {
    const run = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `for (const entry of ["session", "sessions", "utils", "utils/compaction-helpers", "fs", "testing", "server", "formats"]) await import("arbor-memory/" + entry);`,
      ],
      { cwd: project, encoding: "utf8" },
    );
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });
});
