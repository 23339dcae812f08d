// PostgreSQL prepared statements (src/backends/postgres/postgres-statement-names.ts): over pg and
// postgres.js, Arbor's fixed statements are parsed once per connection; searches stay unprepared;
// a client whose server refuses a statement by name (what a transaction-mode pooler does) keeps
// working, unnamed; postgres.js's own `prepare: false` is kept.
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  applyPostgresSchema,
  PostgresSessionProvider,
} from "../../src/postgres/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "./postgres-database.js";

const text = (id: string, body: string) => ({
  id,
  role: "user",
  parts: [{ type: "text", text: body }],
});

interface Prepared {
  name: string;
  statement: string;
}

describePostgres("PostgreSQL prepared statements", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await applyPostgresSchema(database.pool);
  });
  afterAll(() => database?.drop());

  it("a pg Client prepares each fixed statement once and searches unprepared", async () => {
    const client = await database.client();
    const provider = new PostgresSessionProvider(client, "pg-named");
    await provider.appendMessage(text("a", "the budget for the launch"));
    await provider.appendMessage(text("b", "travel plans"), "a");
    await provider.appendMessage(text("c", "more travel"), "b");
    await provider.getHistory();
    await provider.getHistory();
    expect(
      (await provider.searchMessages("budget", 5)).map((hit) => hit.id),
    ).toEqual(["a"]);
    const { rows } = await client.query<Prepared>(
      "SELECT name, statement FROM pg_prepared_statements",
    );
    const names = rows.map((row) => row.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((name) => name.startsWith("arbor_"))).toBe(true);
    // One name per text: the three appends and two reads reused theirs.
    expect(new Set(rows.map((row) => row.statement)).size).toBe(rows.length);
    expect(rows.some((row) => row.statement.includes("@@"))).toBe(false);
  });

  it("a statement the server no longer knows by name (a pooler's answer) is sent again unnamed, and naming stops", async () => {
    const client = await database.client();
    const provider = new PostgresSessionProvider(client, "pg-refused");
    await provider.appendMessage(text("a", "first"));
    await provider.getHistory();
    // Behind pg's back, as a pooler handing the next statement to another server connection
    // would: pg still believes its statements are parsed here.
    await client.query("DEALLOCATE ALL");
    expect((await provider.getHistory()).map((m) => m.id)).toEqual(["a"]);
    await provider.appendMessage(text("b", "second"), "a");
    expect((await provider.getHistory()).map((m) => m.id)).toEqual(["a", "b"]);
    const { rows } = await client.query<Prepared>(
      "SELECT name, statement FROM pg_prepared_statements",
    );
    expect(rows).toEqual([]);
  });

  it("postgres.js prepares the same statements, and keeps a client's prepare: false", async () => {
    const prepared = postgres(database.url, { max: 1, onnotice: () => {} });
    const unprepared = postgres(database.url, {
      max: 1,
      prepare: false,
      onnotice: () => {},
    });
    try {
      for (const [sql, session] of [
        [prepared, "js-named"],
        [unprepared, "js-unnamed"],
      ] as const) {
        const provider = new PostgresSessionProvider(sql, session);
        await provider.appendMessage(text("a", "the budget"));
        await provider.appendMessage(text("b", "travel"), "a");
        await provider.getHistory();
        await provider.getHistory();
        expect(
          (await provider.searchMessages("budget", 5)).map((hit) => hit.id),
        ).toEqual(["a"]);
      }
      const named = await prepared.unsafe<Prepared[]>(
        "SELECT name, statement FROM pg_prepared_statements",
      );
      expect(named.length).toBeGreaterThan(0);
      expect(named.some((row) => row.statement.includes("@@"))).toBe(false);
      const none = await unprepared.unsafe<Prepared[]>(
        "SELECT name, statement FROM pg_prepared_statements",
      );
      expect(none).toEqual([]);
    } finally {
      await prepared.end();
      await unprepared.end();
    }
  });
});
