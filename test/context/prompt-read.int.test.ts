// Reading the system prompt writes nothing (docs/context-blocks.md): `session.readSystemPrompt()`
// and `GET /v1/sessions/{id}/prompt` leave every table byte-identical, and no `_system_prompt_`
// row appears, on SQLite and on PostgreSQL (`pg` and postgres.js); so does the context window
// (`GET …/context`). Only a turn or an explicit call freezes; `POST …/prompt/refresh` still does.
import { postgresBackend } from "../../src/postgres/index.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresClient } from "../../src/backends/postgres/postgres-client.js";
import { createApp } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { client } from "../server/support/client.js";

/** One store: a manager factory over it, and a dump of every row of every table. */
interface PromptStore {
  manager(): SessionManager;
  dump(): Promise<string>;
}

function promptReadCases(open: () => Promise<PromptStore>): void {
  const configure = (manager: SessionManager) =>
    manager.withContext("memory", { description: "Facts" }).withCachedPrompt();

  /** A session with a message and a written block, as a fresh manager sees it. */
  async function seeded(store: PromptStore): Promise<string> {
    const manager = configure(store.manager());
    const { id } = await manager.create("Prompt");
    const session = manager.getSession(id);
    await session.appendMessage({
      id: "u1",
      role: "user",
      parts: [{ type: "text", text: "Hello" }],
    });
    await session.replaceContextBlock("memory", "Likes trains");
    return id;
  }

  it("session.readSystemPrompt() leaves the store byte-identical", async () => {
    const store = await open();
    const id = await seeded(store);
    const before = await store.dump();
    const session = configure(store.manager()).getSession(id);
    const read = await session.readSystemPrompt();
    expect(read.frozen).toBe(null);
    expect(read.current).toContain("Likes trains");
    expect(await store.dump()).toBe(before);
    expect(before).not.toContain("_system_prompt_");
  });

  it("GET /context (the context window) leaves the store byte-identical", async () => {
    const store = await open();
    const id = await seeded(store);
    const before = await store.dump();
    const call = client(createApp({ manager: configure(store.manager()) }));
    const read = await call(
      "GET",
      `/v1/sessions/${id}/context?keepRecent=0&maxTextChars=2`,
    );
    expect(read.status).toBe(200);
    expect(read.body.system.source).toBe("current");
    expect(read.body.system.text).toContain("Likes trains");
    expect(read.body.messages).toHaveLength(1);
    expect(read.body.tools.map((tool: { name: string }) => tool.name)).toEqual([
      "set_context",
    ]);
    expect(await store.dump()).toBe(before);
    expect(before).not.toContain("_system_prompt_");
  });

  it("GET /prompt leaves the store byte-identical; POST /prompt/refresh freezes", async () => {
    const store = await open();
    const id = await seeded(store);
    const before = await store.dump();
    const call = client(createApp({ manager: configure(store.manager()) }));
    const read = await call("GET", `/v1/sessions/${id}/prompt`);
    expect(read.status).toBe(200);
    expect(read.body.prompt).toBe(null);
    expect(read.body.current).toContain("Likes trains");
    expect(await store.dump()).toBe(before);

    const refreshed = await call("POST", `/v1/sessions/${id}/prompt/refresh`);
    expect(refreshed.body.prompt).toBe(read.body.current);
    expect(await store.dump()).toContain("_system_prompt_");
    const again = await call("GET", `/v1/sessions/${id}/prompt`);
    expect(again.body).toEqual({
      prompt: refreshed.body.prompt,
      current: refreshed.body.prompt,
    });
  });
}

describe("reading the prompt writes nothing: SQLite file", () => {
  const dir = mkdtempSync(join(tmpdir(), "arbor-prompt-read-"));
  const handles: SqliteHandle[] = [];
  afterAll(() => {
    for (const handle of handles) handle.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let count = 0;
  promptReadCases(async () => {
    const db = openSqlite(join(dir, `arbor-${count++}.db`));
    handles.push(db);
    return {
      manager: () => SessionManager.create(db),
      dump: async () => {
        const tables = db.database
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
          )
          .all() as { name: string }[];
        return JSON.stringify(
          tables.map(({ name }) => [
            name,
            db.database.prepare(`SELECT * FROM "${name}"`).all(),
          ]),
        );
      },
    };
  });
});

function onPostgres(
  name: string,
  connect: (database: TestDatabase) => PostgresClient,
): void {
  describePostgres(`reading the prompt writes nothing: ${name}`, () => {
    let database: TestDatabase | undefined;
    let connection: PostgresClient | undefined;
    beforeAll(async () => {
      database = await createTestDatabase();
      connection = connect(database);
    }, 60_000);
    afterAll(() => database?.drop(), 60_000);
    promptReadCases(async () => {
      await database!.truncate();
      return {
        manager: () => SessionManager.create(postgresBackend(connection!)),
        dump: async () => {
          const { rows } = await database!.pool.query<{ name: string }>(
            `SELECT table_name AS name FROM information_schema.tables
              WHERE table_schema = 'public' ORDER BY table_name`,
          );
          const tables: unknown[] = [];
          for (const { name: table } of rows) {
            const dumped = await database!.pool.query(
              `SELECT coalesce(json_agg(t ORDER BY t::text), '[]') AS rows FROM "${table}" t`,
            );
            tables.push([table, dumped.rows[0].rows]);
          }
          return JSON.stringify(tables);
        },
      };
    });
  });
}

onPostgres("PostgreSQL over a pg Pool", (database) => database.pool);
onPostgres("PostgreSQL over postgres.js", (database) => database.postgresJs());
