// PostgreSQL-specific regressions: schema application and upgrade, reads that must not touch
// content, search edge cases, and the context, knowledge and block-history providers. The shared
// behaviour is covered by the conformance runners; each case here names what it guards.
import pg from "pg";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import {
  applyPostgresSchema,
  POSTGRES_SCHEMA_SQL,
  postgresSchemaSql,
  PostgresContextProvider,
  PostgresSearchProvider,
  PostgresSessionProvider,
} from "../../src/postgres/index.js";
import {
  PostgresBlockHistory,
  POSTGRES_SCHEMA_VERSION,
} from "../../src/backends/postgres/index.js";
import type { PostgresConnection } from "../../src/backends/postgres/index.js";
import { seedStatements } from "../../src/backends/postgres/postgres-ddl.js";
import {
  createTestDatabase,
  describePostgres,
  executeConnection,
  type TestDatabase,
} from "./postgres-database.js";

const text = (id: string, body: string, role = "user") => ({
  id,
  role,
  parts: [{ type: "text", text: body }],
});

const codeOf = async (work: () => Promise<unknown>) => {
  try {
    await work();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return "none";
};

describePostgres("PostgreSQL schema", () => {
  const databases: TestDatabase[] = [];
  const fresh = async (options?: Parameters<typeof createTestDatabase>[0]) => {
    const database = await createTestDatabase(options);
    databases.push(database);
    return database;
  };
  afterAll(() => Promise.all(databases.map((database) => database.drop())));

  it("creates nothing implicitly: a provider on an empty database fails with SCHEMA_MISSING", async () => {
    const database = await fresh({ schema: false });
    const provider = new PostgresSessionProvider(database.pool, "s");
    expect(await codeOf(() => provider.appendMessage(text("m1", "hi")))).toBe(
      "SCHEMA_MISSING",
    );
    const tables = await database.pool.query(
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
    );
    expect(tables.rows).toEqual([]);
    // Applying the schema afterwards makes the same provider object work.
    await applyPostgresSchema(database.pool);
    expect(await provider.appendMessage(text("m1", "hi"))).toBe(true);
  });

  it("applies idempotently, also from several instances at once, and records the version", async () => {
    const database = await fresh({ schema: false });
    const results = await Promise.all([
      applyPostgresSchema(database.pool),
      applyPostgresSchema(database.pool),
      applyPostgresSchema(await database.client()),
    ]);
    const version = POSTGRES_SCHEMA_VERSION;
    expect(results.map((result) => result.version)).toEqual([
      version,
      version,
      version,
    ]);
    expect(await applyPostgresSchema(database.pool)).toEqual({
      version,
      textSearchConfig: "english",
    });
    const meta = await database.pool.query(
      "SELECT key, value FROM arbor_meta ORDER BY key",
    );
    expect(meta.rows).toEqual([
      { key: "postgres_schema_version", value: String(version) },
      { key: "text_search_config", value: "english" },
      // A store created now counts tokens with the multilingual estimate (docs/token-estimation.md).
      { key: "token_estimate", value: "multilingual" },
    ]);
  });

  it("schema v5 rebuilds the search text of messages with tool calls, and only theirs", async () => {
    const database = await fresh();
    const provider = new PostgresSessionProvider(database.pool, "s");
    await provider.appendMessage(text("u1", "make me a shop"));
    await provider.appendMessage({
      id: "a1",
      role: "assistant",
      parts: [
        {
          type: "tool-bash",
          toolCallId: "c1",
          state: "output-available",
          input: { command: "npx create-next-app@latest shop" },
          output: "done",
        },
      ],
    });
    // As a version-4 database stored them: no tool-call inputs in the search text.
    await database.pool.query(
      "UPDATE assistant_messages SET text_content = 'bash' WHERE id = 'a1'",
    );
    await database.pool.query(
      "UPDATE assistant_messages SET text_content = 'kept as it was' WHERE id = 'u1'",
    );
    await database.pool.query(
      "UPDATE arbor_meta SET value = '4' WHERE key = 'postgres_schema_version'",
    );
    expect((await applyPostgresSchema(database.pool)).version).toBe(
      POSTGRES_SCHEMA_VERSION,
    );
    const rows = await database.pool.query(
      "SELECT id, text_content FROM assistant_messages ORDER BY id",
    );
    expect(rows.rows).toEqual([
      { id: "a1", text_content: "bash npx create-next-app@latest shop" },
      { id: "u1", text_content: "kept as it was" },
    ]);
    const reader = new PostgresSessionProvider(database.pool, "s");
    expect(
      (await reader.searchMessages("create-next-app")).map((hit) => hit.id),
    ).toEqual(["a1"]);
  });

  it("refuses to switch the text-search configuration of existing tables", async () => {
    const database = await fresh({ textSearchConfig: "simple" });
    expect(
      await codeOf(() =>
        applyPostgresSchema(database.pool, { textSearchConfig: "english" }),
      ),
    ).toBe("INVALID_ARGUMENT");
    expect(
      await codeOf(() =>
        applyPostgresSchema(database.pool, { textSearchConfig: "x'; DROP" }),
      ),
    ).toBe("INVALID_ARGUMENT");
    expect((await applyPostgresSchema(database.pool)).textSearchConfig).toBe(
      "simple",
    );
  });

  it("POSTGRES_SCHEMA_SQL is the seeds' DDL plus Arbor's, and runs as one script", async () => {
    expect(POSTGRES_SCHEMA_SQL).toBe(postgresSchemaSql());
    expect(POSTGRES_SCHEMA_SQL).toContain(
      "content_tsv TSVECTOR GENERATED ALWAYS AS (to_tsvector('english', text_content)) STORED",
    );
    expect(postgresSchemaSql({ textSearchConfig: "simple" })).toContain(
      "to_tsvector('simple', text_content)",
    );
    const database = await fresh({ schema: false });
    await database.pool.query(POSTGRES_SCHEMA_SQL);
    await database.pool.query(POSTGRES_SCHEMA_SQL);
    const provider = new PostgresSessionProvider(database.pool, "s");
    await provider.appendMessage(text("m1", "hello world"));
    expect(
      (await provider.searchMessages("hello")).map((hit) => hit.id),
    ).toEqual(["m1"]);
  });

  it("upgrades tables written with the seeds' DDL: seq in created_at order, search text rebuilt", async () => {
    const database = await fresh({ schema: false });
    const { pool } = database;
    for (const statement of seedStatements("english"))
      await pool.query(statement);
    // As the reference wrote them: raw text_content, NOW() timestamps (equal within a transaction).
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      for (const [id, parent, body] of [
        ["b", "a", "用户喜欢喝咖啡"],
        ["a", null, "first Café"],
      ] as const) {
        await client.query(
          "INSERT INTO assistant_messages (id, session_id, parent_id, role, content, text_content) VALUES ($1, 's', $2, 'user', $3, $4)",
          [id, parent, JSON.stringify(text(id, body)), body],
        );
      }
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    await pool.query(
      "INSERT INTO assistant_messages (id, session_id, parent_id, role, content, text_content, created_at) VALUES ('c', 's', 'b', 'user', $1, 'third', NOW() + interval '1 second')",
      [JSON.stringify(text("c", "third"))],
    );
    await pool.query(
      "INSERT INTO cf_agents_search_entries (label, key, content) VALUES ('kb', 'ja', '本番環境へのデプロイは金曜日です')",
    );
    await applyPostgresSchema(pool);
    const provider = new PostgresSessionProvider(pool, "s");
    expect((await provider.getHistory()).map((message) => message.id)).toEqual([
      "a",
      "b",
      "c",
    ]);
    expect(
      (await provider.searchMessages("咖啡")).map((hit) => hit.id),
    ).toEqual(["b"]);
    expect(
      (await provider.searchMessages("cafe")).map((hit) => hit.id),
    ).toEqual(["a"]);
    await provider.appendMessage(text("d", "fourth"));
    expect((await provider.getLatestLeaf())?.id).toBe("d");
    const kb = new PostgresSearchProvider(pool);
    kb.init("kb");
    expect(await kb.search("金曜日")).toBe(
      "[ja]\n本番環境へのデプロイは金曜日です",
    );
  });
});

describePostgres("PostgresSessionProvider on PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());
  beforeEach(() => database.truncate());

  /** An execute-style connection that records every row the provider reads. */
  function spy(): {
    connection: PostgresConnection;
    rows: Array<Record<string, unknown>>;
  } {
    const inner = executeConnection(database.pool);
    const rows: Array<Record<string, unknown>> = [];
    return {
      rows,
      connection: {
        async execute(query, args) {
          const result = await inner.execute(query, args);
          rows.push(...result.rows);
          return result;
        },
      },
    };
  }

  it("reads no message content for row stats, and only the window's for recent history", async () => {
    const writer = new PostgresSessionProvider(database.pool, "s");
    for (let index = 0; index < 50; index++)
      await writer.appendMessage(text(`m${index}`, "x".repeat(100)));
    const { connection, rows } = spy();
    const reader = new PostgresSessionProvider(connection, "s");
    const stats = await reader.getHistoryRowStats();
    expect(stats).toHaveLength(50);
    expect(rows.filter((row) => "content" in row)).toEqual([]);
    const window = await reader.getRecentHistory(null, 500);
    expect(window.truncated).toBe(true);
    const read = rows.filter((row) => "content" in row).map((row) => row.id);
    expect(read).toEqual(window.messages.map((message) => message.id));
    expect(read.length).toBeLessThan(10);
  });

  it("stores NUL characters and indexes huge or repetitive texts without failing the insert", async () => {
    const provider = new PostgresSessionProvider(database.pool, "s");
    await provider.appendMessage(text("nul", "deploy\u0000friday"));
    expect((await provider.getMessage("nul"))?.parts[0]?.text).toBe(
      "deploy\u0000friday",
    );
    expect(
      (await provider.searchMessages("friday")).map((hit) => hit.id),
    ).toEqual(["nul"]);
    // 1.3 MB of distinct words overflows a tsvector (1 MB) if indexed whole.
    const words = Array.from(
      { length: 40_000 },
      (_, index) => `w${index.toString(36)}x${(index * 7919).toString(36)}`,
    );
    await provider.appendMessage(text("huge", words.join(" ")));
    expect(
      (await provider.searchMessages(words[10]!)).map((hit) => hit.id),
    ).toEqual(["huge"]);
    // A CJK word after the 256th occurrence of its characters is still found.
    await provider.appendMessage(
      text("long", "的".repeat(2000) + "咖啡的".repeat(300) + "金曜日"),
    );
    expect(
      (await provider.searchMessages("的金曜日")).map((hit) => hit.id),
    ).toEqual(["long"]);
  });

  it("returns ISO createdAt everywhere, equal between addCompaction and getCompactions", async () => {
    const provider = new PostgresSessionProvider(database.pool, "s");
    await provider.appendMessage(text("m1", "alpha"));
    await provider.appendMessage(text("m2", "beta"));
    const stored = await provider.addCompaction("sum", "m1", "m2", {
      tokensBefore: 5,
    });
    expect(await provider.getCompactions()).toEqual([stored]);
    const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
    expect(stored.createdAt).toMatch(iso);
    expect((await provider.searchMessages("alpha"))[0]?.createdAt).toMatch(iso);
    expect(
      (await provider.exportMessages()).map((record) => record.createdAt),
    ).toSatisfy((times: string[]) => times.every((time) => iso.test(time)));
  });

  it("imports exported records as they were, with overlays, replace and MESSAGE_EXISTS (Pool and execute-style)", async () => {
    for (const client of [database.pool, executeConnection(database.pool)]) {
      await database.truncate();
      const source = new PostgresSessionProvider(client, "from");
      for (const id of ["a", "b", "c"])
        await source.appendMessage(text(id, `word ${id}`));
      await source.appendMessage(text("b2", "branch"), "a");
      const overlay = await source.addCompaction("sum", "a", "b");
      const target = new PostgresSessionProvider(client, "to");
      const records = await source.exportMessages();
      await target.importRecords({ messages: records, compactions: [overlay] });
      expect(await target.exportMessages()).toEqual(records);
      const [copied] = await target.getCompactions();
      expect(copied).toMatchObject({
        summary: "sum",
        fromMessageId: "a",
        toMessageId: "b",
      });
      expect(copied!.id).not.toBe(overlay.id); // the id is taken by the source session
      expect((await target.getLatestLeaf())?.id).toBe("b2");
      expect((await target.searchMessages("word")).length).toBe(3);
      expect(
        await codeOf(() =>
          target.importRecords({
            messages: records.slice(0, 1),
            compactions: [],
          }),
        ),
      ).toBe("MESSAGE_EXISTS");
      await target.importRecords({
        messages: records.slice(0, 2),
        compactions: [],
        replace: true,
      });
      expect(
        (await target.exportMessages()).map((record) => record.message.id),
      ).toEqual(["a", "b"]);
      expect(await target.getCompactions()).toEqual([]);
    }
  });

  it("terminates on a parent cycle written by raw SQL, visiting each id once", async () => {
    const provider = new PostgresSessionProvider(database.pool, "s");
    for (const id of ["a", "b", "c"])
      await provider.appendMessage(text(id, id));
    await database.pool.query(
      "UPDATE assistant_messages SET parent_id = 'c' WHERE session_id = 's' AND id = 'a'",
    );
    expect(
      (await provider.getHistory("c")).map((message) => message.id),
    ).toEqual(["a", "b", "c"]);
    expect(await provider.getPathLength("c")).toBe(3);
    expect(
      (await provider.getHistoryRowStats("b")).map((row) => row.id),
    ).toEqual(["c", "a", "b"]);
    expect(
      (await provider.getRecentHistory("c", 1_000_000)).messages,
    ).toHaveLength(3);
  });

  it("keeps per-session config in assistant_config", async () => {
    const a = new PostgresSessionProvider(database.pool, "a");
    const b = a.forSession("b");
    await a.setConfig("active_leaf", "x");
    await a.setConfig("active_leaf", "y");
    expect(await a.getConfig("active_leaf")).toBe("y");
    expect(await b.getConfig("active_leaf")).toBeNull();
    await a.setConfig("active_leaf", null);
    expect(await a.getConfig("active_leaf")).toBeNull();
  });

  it("numbers block-history versions from concurrent writers without gaps or duplicates", async () => {
    const clients = await Promise.all(
      Array.from({ length: 8 }, () => database.client()),
    );
    await Promise.all(
      clients.map(async (client, writer) => {
        const history = new PostgresBlockHistory(client, "s");
        for (let index = 0; index < 10; index++)
          await history.record("memory", {
            content: `${writer}-${index}`,
            previousContent: null,
            source: "api",
          });
      }),
    );
    const versions = await new PostgresBlockHistory(database.pool, "s").list(
      "memory",
    );
    expect(versions.map((version) => version.version)).toEqual(
      Array.from({ length: 80 }, (_, index) => index + 1),
    );
  });
});

describePostgres("PostgresContextProvider and PostgresSearchProvider", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());
  beforeEach(() => database.truncate());

  it("keeps one row per label; replaceIf writes only over the content it expects", async () => {
    const memory = new PostgresContextProvider(database.pool, "memory_s1");
    expect(await memory.get()).toBeNull();
    expect(await memory.replaceIf("x", "never")).toBe(false);
    expect(await memory.replaceIf(null, "first")).toBe(true);
    expect(await memory.replaceIf(null, "again")).toBe(false);
    expect(await memory.replaceIf("first", "second")).toBe(true);
    await memory.set("third");
    expect(
      await new PostgresContextProvider(database.pool, "memory_s1").get(),
    ).toBe("third");
    expect(
      await new PostgresContextProvider(database.pool, "memory_s2").get(),
    ).toBeNull();
    expect(() => new PostgresContextProvider(database.pool, "")).toThrow(
      TypeError,
    );
  });

  it("finds entries per term in any language, CJK words inside sentences", async () => {
    const kb = new PostgresSearchProvider(database.pool);
    kb.init("kb");
    expect(await kb.get()).toBeNull();
    await kb.set("deploy", "The production deployment happens on Friday.");
    await kb.set("ru", "Пользователь любит зелёный чай по утрам.");
    await kb.set("ja", "本番環境へのデプロイは金曜日です");
    await kb.set("zh", "用户喜欢喝咖啡");
    expect(await kb.get()).toBe("4 entries indexed.");
    expect(await kb.search("friday deployment")).toBe(
      "[deploy]\nThe production deployment happens on Friday.",
    );
    expect(await kb.search("чай")).toBe(
      "[ru]\nПользователь любит зелёный чай по утрам.",
    );
    expect(await kb.search("金曜日")).toBe(
      "[ja]\n本番環境へのデプロイは金曜日です",
    );
    expect(await kb.search("咖啡")).toBe("[zh]\n用户喜欢喝咖啡");
    expect(await kb.search("土曜日")).toBe("No results found.");
    for (const query of ["", "   "]) expect(await kb.search(query)).toBeNull();
    for (const query of ['"', "*", "NEAR(", "a:b ^c", "!&|<->"])
      expect(await kb.search(query)).toBe("No results found.");
  });

  it("answers a question with the entry holding its keywords (stop and question words dropped, stems matched)", async () => {
    const kb = new PostgresSearchProvider(database.pool);
    kb.init("kb");
    await kb.set("deploy", "Production deployments happen on Friday.");
    await kb.set("tea", "The team drinks green tea.");
    await kb.set("ja", "本番環境へのデプロイは金曜日です");
    expect(await kb.search("When do we deploy to production?")).toBe(
      "[deploy]\nProduction deployments happen on Friday.",
    );
    await kb.set("trip", "Caroline went to Lisbon in May.");
    expect(await kb.search("Where did Caroline go?")).toBe(
      "[trip]\nCaroline went to Lisbon in May.",
    );
    // A CJK term still needs its characters adjacent; another term can match alongside it.
    expect(await kb.search("金曜日 kiwi")).toBe(
      "[ja]\n本番環境へのデプロイは金曜日です",
    );
    expect(await kb.search("曜金 kiwi")).toBe("No results found.");
  });

  it("ranks the entry matching every term first, then those matching some", async () => {
    const kb = new PostgresSearchProvider(database.pool);
    kb.init("kb");
    await kb.set(
      "billing",
      "Invoices are sent monthly by the billing service.",
    );
    await kb.set("both", "The billing service owner is Mira.");
    await kb.set("owner", "Tomasz is the owner of search; owner of owners.");
    const result = (await kb.search(
      "Who is the owner of the billing service?",
    ))!;
    expect(result.split("\n\n").map((entry) => entry.split("\n")[0])).toEqual([
      "[both]",
      "[billing]",
      "[owner]",
    ]);
  });

  it("answers a query made only of stop words as message search does here: the configuration drops them", async () => {
    const kb = new PostgresSearchProvider(database.pool);
    kb.init("kb");
    await kb.set("hamlet", "to be or not to be");
    expect(await kb.search("not")).toBe("No results found.");
    const provider = new PostgresSessionProvider(database.pool, "s");
    await provider.appendMessage(text("m1", "to be or not to be"));
    expect(await provider.searchMessages("not")).toEqual([]);
  });

  it("updates in place, deletes, isolates labels, returns at most 10 best first", async () => {
    const kb = new PostgresSearchProvider(database.pool);
    kb.init("kb");
    const other = new PostgresSearchProvider(database.pool);
    other.init("other");
    await kb.set("tea", "green tea");
    await kb.set("tea", "black tea");
    await other.set("tea", "green tea elsewhere");
    expect(await kb.search("green")).toBe("No results found.");
    expect(await kb.search("black")).toBe("[tea]\nblack tea");
    await kb.delete("tea");
    expect(await kb.get()).toBeNull();
    expect(await other.search("green")).toBe("[tea]\ngreen tea elsewhere");
    for (let index = 0; index < 15; index++)
      await kb.set(`k${index}`, `alpha entry ${index}`);
    await kb.set("best", "alpha alpha alpha");
    const result = (await kb.search("alpha"))!;
    expect(result.split("\n\n")).toHaveLength(10);
    expect(result.startsWith("[best]")).toBe(true);
  });

  it("answers null instead of throwing when the database fails", async () => {
    const broken = new PostgresSearchProvider({
      execute: async () => {
        throw new Error("connection lost");
      },
    });
    broken.init("kb");
    expect(await broken.search("anything")).toBeNull();
  });
});

void pg;
