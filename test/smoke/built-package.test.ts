// Imports the *built* package by its name, the way users do, in a separate Node process.
// `npm test` builds first; run `npm run build` before running this file alone.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const scratch = mkdtempSync(join(tmpdir(), "arbor-smoke-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function runModule(source: string): string {
  return execFileSync(process.execPath, ["--input-type=module", "-e", source], {
    cwd: root,
    encoding: "utf8",
  });
}

describe("the built package", () => {
  it("exposes every entry of the exports map by package name", () => {
    const output = runModule(`
      const session = await import("arbor-memory/session");
      const sqlite = await import("arbor-memory/sqlite");
      const utils = await import("arbor-memory/utils");
      const helpers = await import("arbor-memory/utils/compaction-helpers");
            const testing = await import("arbor-memory/testing");
      const agent = await import("arbor-memory/agent");
      const fs = await import("arbor-memory/fs");
      const tokenizer = await import("arbor-memory/tokenizer");
      console.log(JSON.stringify({
        session: ["Session", "AgentSessionProvider", "InMemorySessionProvider", "isArborError"].every((name) => typeof session[name] === "function"),
        sqlite: typeof sqlite.openSqlite === "function",
        sameHelpers: helpers.applyCompactions === utils.applyCompactions && helpers.COMPACTION_PREFIX === "compaction_",
                testing: typeof testing.runProviderConformance === "function" && typeof testing.runManagerConformance === "function",
        agent: ["SessionAgent", "runTurn", "summarizeWith", "assembleContext"].every((name) => typeof agent[name] === "function"),
        fs: typeof fs.FileSkillProvider === "function",
        tokenizer: tokenizer.exactTokenCounter()({ messages: [], systemPrompt: "Hello world", contextBlocks: [] }) === 2,
      }));
    `);
    expect(JSON.parse(output)).toEqual({
      session: true,
      sqlite: true,
      sameHelpers: true,
      testing: true,
      agent: true,
      fs: true,
      tokenizer: true,
    });
  });

  it("gives the seed-named PostgreSQL classes of arbor-memory/session as arbor-memory/postgres's own", () => {
    const output = runModule(`
      import * as session from "arbor-memory/session";
      import * as postgres from "arbor-memory/postgres";
      import * as sqlite from "arbor-memory/sqlite";
      const names = ["PostgresSessionProvider", "PostgresContextProvider", "PostgresSearchProvider", "applyPostgresSchema"];
      console.log(JSON.stringify({
        same: names.filter((name) => typeof session[name] === "function" && session[name] === postgres[name]),
        backends: [typeof postgres.postgresBackend, typeof sqlite.sqliteBackend, typeof session.sqlBackend, typeof session.memoryBackend],
      }));
    `);
    expect(JSON.parse(output)).toEqual({
      same: [
        "PostgresSessionProvider",
        "PostgresContextProvider",
        "PostgresSearchProvider",
        "applyPostgresSchema",
      ],
      backends: ["function", "function", "function", "function"],
    });
  });

  it("stores and reads a branched conversation through arbor-memory/session and arbor-memory/sqlite", () => {
    const file = join(scratch, "smoke.db");
    const output = runModule(`
      import { Session } from "arbor-memory/session";
      import { openSqlite } from "arbor-memory/sqlite";
      const db = openSqlite(${JSON.stringify(file)});
      const session = Session.create(db).forSession("s");
      const text = (t) => [{ type: "text", text: t }];
      await session.appendMessage({ id: "u", role: "user", parts: text("question") });
      await session.appendMessage({ id: "a", role: "assistant", parts: text("first answer") });
      await session.appendMessage({ id: "b", role: "assistant", parts: text("second answer") }, "u");
      const history = (await session.getHistory()).map((m) => m.id);
      const branches = (await session.getBranches("u")).map((m) => m.id);
      const hits = (await session.search("answer first")).map((m) => m.id);
      db.close();
      console.log(JSON.stringify({ history, branches, hits }));
    `);
    expect(JSON.parse(output)).toEqual({
      history: ["u", "b"],
      branches: ["a", "b"],
      // Ranked any-term search: the message holding both words first, then the one with one.
      hits: ["a", "b"],
    });
  });

  it("loads the PostgreSQL schema code, record import, tree repair, message search and registry only when used, not with arbor-memory/session", () => {
    // A loader hook reports every module Node loads: what importing the entry costs a process that
    // never applies a schema, imports records, deletes, searches or lists sessions on PostgreSQL
    // (ARCHITECTURE.md, "Backends").
    const hooks = `import { writeSync } from "node:fs";
      export async function load(url, context, next) {
        const loaded = await next(url, context);
        if (url.startsWith("file:")) writeSync(1, "LOADED " + url + "\\n");
        return loaded;
      }`;
    const register = `import { register } from "node:module";
      register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
    const loaded = execFileSync(
      process.execPath,
      [
        "--import",
        `data:text/javascript,${encodeURIComponent(register)}`,
        "--input-type=module",
        "-e",
        'await import("arbor-memory/session");',
      ],
      { cwd: root, encoding: "utf8" },
    )
      .split("\n")
      .filter((line) => line.startsWith("LOADED "))
      .map((line) => line.slice("LOADED ".length));
    const postgres = loaded
      .map((url) => /\/dist\/backends\/postgres\/([\w-]+)\.js$/.exec(url)?.[1])
      .filter((module): module is string => module !== undefined);
    // The classes themselves load: they are static exports, not stand-ins.
    expect(postgres).toEqual(
      expect.arrayContaining([
        "postgres-session-provider",
        "postgres-context-provider",
        "postgres-search-provider",
        "postgres-schema",
      ]),
    );
    const lazy = [
      "postgres-migrate",
      "postgres-migrations",
      "postgres-ddl",
      "postgres-attachment-ddl",
      "postgres-change-log-ddl",
      "postgres-reference-upgrade",
      "postgres-tool-input-upgrade",
      "postgres-schema-sql",
      "postgres-import",
      "postgres-tree-repair",
      "postgres-search",
      "postgres-summary-search",
      "postgres-registry",
      "postgres-backend",
      "index",
    ];
    expect(postgres.filter((module) => lazy.includes(module))).toEqual([]);
  });

  it("keeps arbor-memory/session free of Node-only modules, so it loads in workerd", () => {
    // arbor-memory/session imports no package at all: node:*, better-sqlite3, pg and zod must not load.
    const workerdSafe = new Set<string>();
    const seen = new Set<string>();
    const forbidden: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const { importedFiles } = ts.preProcessFile(
        readFileSync(file, "utf8"),
        true,
        true,
      );
      for (const { fileName } of importedFiles) {
        if (fileName.startsWith(".")) visit(resolve(dirname(file), fileName));
        else if (!workerdSafe.has(fileName)) {
          forbidden.push(`${file.slice(root.length + 1)} imports ${fileName}`);
        }
      }
    };
    visit(join(root, "dist/session/index.js"));
    expect(seen.size).toBeGreaterThan(5);
    expect(forbidden).toEqual([]);
  });
});
