// Keeps docs/postgres.md honest: every ```ts block of the page runs as printed, each on a
// throwaway database of ARBOR_TEST_PG_URL (`process.env.DATABASE_URL` and, for the Worker blocks,
// `env.HYPERDRIVE.connectionString` point at it), with its package imports pointed at the
// sources. doc-snippets.test.ts type-checks the same blocks; this runs them. What a block leaves
// in scope (a pool, a session, a manager) is exported by a line added after it, so the test can
// check that it works and close it; a Worker block's `// …` hands the test its session and `sql`.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type pg from "pg";
import type postgres from "postgres";
import { afterAll, expect, it } from "vitest";
import type { Session, SessionManager } from "../../src/session/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PAGE = readFileSync(join(ROOT, "docs/postgres.md"), "utf8");

const ENTRIES: Record<string, string> = {
  "arbor-memory/session": "src/session/index.ts",
  "arbor-memory/postgres": "src/postgres/index.ts",
};

// Inside the repository, so the blocks' imports (`pg`, `postgres`) resolve from its node_modules.
const FOLDER = join(
  ROOT,
  "node_modules/.cache",
  `arbor-postgres-doc-${process.pid}`,
);
afterAll(() => rmSync(FOLDER, { recursive: true, force: true }));

/** The page's ```ts blocks, in order. */
const BLOCKS = [...PAGE.matchAll(/```ts\n([\s\S]*?)```/g)].map(
  (match) => match[1]!,
);

/** Writes block `index` (imports pointed at the sources, `extra` appended) and imports it. */
async function runBlock(
  index: number,
  name: string,
  extra: string,
  edit: (code: string) => string = (code) => code,
): Promise<Record<string, unknown>> {
  const code =
    edit(BLOCKS[index]!).replace(/from\s+"([^"]+)"/g, (match, specifier) =>
      ENTRIES[specifier as string]
        ? `from ${JSON.stringify(join(ROOT, ENTRIES[specifier as string]!))}`
        : match,
    ) + extra;
  mkdirSync(FOLDER, { recursive: true });
  const file = join(FOLDER, `${name}.ts`);
  writeFileSync(file, code);
  return (await import(file)) as Record<string, unknown>;
}

const text = (id: string, words: string) => ({
  id,
  role: "user" as const,
  parts: [{ type: "text" as const, text: words }],
});

describePostgres("docs/postgres.md, run as printed", () => {
  const databases: TestDatabase[] = [];
  const fresh = async () => {
    const database = await createTestDatabase({ schema: false });
    databases.push(database);
    process.env.DATABASE_URL = database.url;
    return database;
  };
  afterAll(async () => {
    delete process.env.DATABASE_URL;
    await Promise.allSettled(databases.map((database) => database.drop()));
  });

  it("has the five blocks this test runs", () => {
    expect(BLOCKS).toHaveLength(5);
    expect(BLOCKS[0]).toContain('new PostgresSessionProvider(pool, "chat-1")');
    expect(BLOCKS[1]).toContain('textSearchConfig: "simple"');
    expect(BLOCKS[2]).toContain("SessionManager.create(postgresBackend(pool))");
    expect(BLOCKS[3]).toContain("postgres(env.HYPERDRIVE.connectionString)");
    expect(BLOCKS[4]).toContain("execute: async (query: string");
  });

  it("the opening block applies the schema, appends and keeps the context blocks", async () => {
    await fresh();
    const block = await runBlock(0, "opening", "\nexport { pool, session };");
    const pool = block.pool as pg.Pool;
    try {
      const session = block.session as Session;
      expect((await session.getHistory()).map((m) => m.id)).toEqual(["u1"]);
      await session.replaceContextBlock("memory", "likes tea");
      const { rows } = await pool.query<{ label: string; content: string }>(
        "SELECT label, content FROM cf_agents_context_blocks WHERE label = 'memory_chat-1'",
      );
      expect(rows).toEqual([{ label: "memory_chat-1", content: "likes tea" }]);
    } finally {
      await pool.end();
    }
  });

  it("the text search configuration block records `simple` in arbor_meta", async () => {
    const database = await fresh();
    const block = await runBlock(1, "simple-config", "\nexport { pool };");
    const pool = block.pool as pg.Pool;
    try {
      const { rows } = await database.pool.query<{ value: string }>(
        "SELECT value FROM arbor_meta WHERE key = 'text_search_config'",
      );
      expect(rows.map((row) => row.value)).toEqual(["simple"]);
    } finally {
      await pool.end();
    }
  });

  it("the SessionManager block creates a session owned by its user", async () => {
    await fresh();
    const block = await runBlock(
      2,
      "manager",
      "\nexport { pool, manager, info };",
    );
    const pool = block.pool as pg.Pool;
    try {
      const manager = block.manager as SessionManager;
      const info = block.info as { id: string; name: string; ownerId?: string };
      expect(info.name).toBe("Trip planning");
      const listed = await manager.list({ ownerId: "user-42" });
      expect(listed.map((session) => session.id)).toEqual([info.id]);
    } finally {
      await pool.end();
    }
  });

  for (const [index, name] of [
    [3, "Hyperdrive with postgres.js passed as it is"],
    [4, "the execute-style adapter over postgres.js"],
  ] as const) {
    it(`the Worker block (${name}) gives a session that appends and reads back`, async () => {
      const database = await createTestDatabase();
      databases.push(database);
      // The block's `// …`, the app's own work, is this: append twice, read back, hand over `sql`.
      const seen: { ids: string[]; sql: postgres.Sql }[] = [];
      (globalThis as { __arborPostgresDoc?: unknown }).__arborPostgresDoc =
        async (session: Session, sql: postgres.Sql) => {
          await session.appendMessage(text("u1", "hello over hyperdrive"));
          await session.appendMessage(text("u2", "and again"));
          seen.push({
            ids: (await session.getHistory()).map((m) => m.id),
            sql,
          });
        };
      const waited: Promise<unknown>[] = [];
      const block = await runBlock(index, `worker-${index}`, "", (code) => {
        expect(code).toContain("// …");
        return code.replace(
          "// …",
          "await (globalThis as any).__arborPostgresDoc(session, sql);",
        );
      });
      const worker = block.default as {
        fetch(request: Request, env: unknown, ctx: unknown): Promise<unknown>;
      };
      try {
        await worker.fetch(
          new Request("http://localhost/"),
          { HYPERDRIVE: { connectionString: database.url } },
          { waitUntil: (promise: Promise<unknown>) => waited.push(promise) },
        );
        expect(seen.map((entry) => entry.ids)).toEqual([["u1", "u2"]]);
        // The first block ends its `sql` through waitUntil, as printed.
        expect(waited).toHaveLength(index === 3 ? 1 : 0);
        await Promise.all(waited);
      } finally {
        // The second leaves its `sql` to the Worker's lifetime: the test ends it.
        await Promise.allSettled(
          seen.map((entry) => entry.sql.end({ timeout: 5 })),
        );
      }
    });
  }
});
