// A chain of messages (`writeMessages` with several, `appendAll`) is one statement on PostgreSQL:
// per-message results, idempotency by id, one change for the rows it wrote, the parent check,
// and all or nothing, over pg and postgres.js (with `sql` as it is and through the documented
// execute adapter, which has no transaction: the one statement is what makes it atomic there).
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgresSessionProvider } from "../../src/postgres/index.js";
import type { PostgresClient } from "../../src/backends/postgres/postgres-client.js";
import type { SessionMessage } from "../../src/session/index.js";
import {
  createTestDatabase,
  describePostgres,
  documentedPostgresJsConnection,
  type TestDatabase,
} from "./postgres-database.js";

describePostgres("a chain of messages in one statement on PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  }, 60_000);
  afterAll(() => database?.drop(), 60_000);

  const connections: Array<[string, () => PostgresClient]> = [
    ["pg Pool", () => database.pool],
    ["postgres.js sql", () => database.postgresJs()],
    [
      "postgres.js execute adapter",
      () => documentedPostgresJsConnection(database.postgresJs()),
    ],
  ];

  for (const [kind, connect] of connections) {
    it(`(${kind}) reports each message, skips taken ids and chains under them`, async () => {
      await database.truncate();
      // The change log is not one of the tables `truncate()` empties.
      await database.pool.query("TRUNCATE arbor_changes");
      const provider = new PostgresSessionProvider(connect(), "s");
      await provider.appendMessage(text("a"));
      const result = await provider.writeMessages(
        ["b", "a", "c", "b", "d"].map((id) => ({ message: text(id) })),
        { parentId: "a" },
      );
      // "a" was there, the second "b" met the first: both left as they are, the chain goes on.
      expect(result).toEqual({
        inserted: [true, false, true, false, true],
        firstParentId: "a",
      });
      expect(await rows(database, "s")).toEqual([
        { id: "a", parent_id: null },
        { id: "b", parent_id: "a" },
        { id: "c", parent_id: "a" },
        { id: "d", parent_id: "b" },
      ]);
      // One change for what the statement wrote, its ids in insertion order.
      const changes = await database.pool.query(
        "SELECT ids FROM arbor_changes WHERE session_id = 's' ORDER BY seq",
      );
      expect(changes.rows.map((row) => row.ids)).toEqual([
        ["a"],
        ["b", "c", "d"],
      ]);
      // The same batch again writes nothing and records nothing.
      const again = await provider.writeMessages(
        ["b", "c"].map((id) => ({ message: text(id) })),
        { parentId: "a" },
      );
      expect(again.inserted).toEqual([false, false]);
      const after = await database.pool.query(
        "SELECT count(*)::int AS n FROM arbor_changes WHERE session_id = 's'",
      );
      expect(after.rows[0].n).toBe(2);
      // After the latest leaf by default; under a new root with `null`.
      await provider.writeMessages(
        ["e", "f"].map((id) => ({ message: text(id) })),
      );
      await provider.writeMessages(
        ["r", "r2"].map((id) => ({ message: text(id) })),
        { parentId: null },
      );
      expect((await rows(database, "s")).slice(4)).toEqual([
        { id: "e", parent_id: "d" },
        { id: "f", parent_id: "e" },
        { id: "r", parent_id: null },
        { id: "r2", parent_id: "r" },
      ]);
      // Searchable, like a single insert.
      const hits = await provider.searchMessages("words");
      expect(hits.map((hit) => hit.id).sort()).toEqual(
        ["a", "b", "c", "d", "e", "f", "r", "r2"].sort(),
      );
    });

    it(`(${kind}) with requireParent, a parent the session lacks writes nothing`, async () => {
      await database.truncate();
      const provider = new PostgresSessionProvider(connect(), "s");
      await provider.appendMessage(text("a"));
      await provider.forSession("other").appendMessage(text("o"));
      for (const parentId of ["nowhere", "o"]) {
        const batch = await provider.writeMessages(
          ["x", "y"].map((id) => ({ message: text(id) })),
          { parentId, requireParent: true },
        );
        expect(batch).toEqual({
          inserted: [false, false],
          firstParentId: null,
          parentFound: false,
        });
        const one = await provider.writeMessages([{ message: text("x") }], {
          parentId,
          requireParent: true,
        });
        expect(one).toEqual({
          inserted: [false],
          firstParentId: null,
          parentFound: false,
        });
      }
      expect(await rows(database, "s")).toEqual([{ id: "a", parent_id: null }]);
      // A parent that is there: written under it.
      const stored = await provider.writeMessages(
        ["x", "y"].map((id) => ({ message: text(id) })),
        { parentId: "a", requireParent: true },
      );
      expect(stored).toEqual({ inserted: [true, true], firstParentId: "a" });
      // Only a given parent is checked: a taken id under `null` or the latest leaf is just taken.
      for (const parentId of [null, undefined])
        expect(
          await provider.writeMessages([{ message: text("a") }], {
            parentId,
            requireParent: true,
            requireRegistered: true,
          }),
        ).toEqual({ inserted: [false], firstParentId: null });
      // The registry is checked first: a session without its row is reported as that.
      const unregistered = await provider
        .forSession("ghost")
        .writeMessages([{ message: text("g") }, { message: text("h") }], {
          parentId: "a",
          requireParent: true,
          requireRegistered: true,
        });
      expect(unregistered.registered).toBe(false);
      expect(await rows(database, "ghost")).toEqual([]);
    });

    it(`(${kind}) a batch that fails part way writes nothing`, async () => {
      await database.truncate();
      await database.pool.query("TRUNCATE arbor_changes");
      // A real failure inside the statement, after some rows went in: a trigger refusing one id.
      await database.pool
        .query(`CREATE OR REPLACE FUNCTION arbor_test_refuse() RETURNS trigger
        LANGUAGE plpgsql AS $$ BEGIN
          IF NEW.id = 'refused' THEN RAISE EXCEPTION 'refused by the test'; END IF;
          RETURN NEW;
        END $$`);
      await database.pool
        .query(`CREATE TRIGGER arbor_test_refuse BEFORE INSERT ON assistant_messages
        FOR EACH ROW EXECUTE FUNCTION arbor_test_refuse()`);
      try {
        const provider = new PostgresSessionProvider(connect(), "s");
        await provider.appendMessage(text("a"));
        await expect(
          provider.writeMessages(
            ["b", "c", "refused", "d"].map((id) => ({ message: text(id) })),
          ),
        ).rejects.toMatchObject({ code: "STORAGE_ERROR" });
        expect(await rows(database, "s")).toEqual([
          { id: "a", parent_id: null },
        ]);
        const changes = await database.pool.query(
          "SELECT count(*)::int AS n FROM arbor_changes WHERE session_id = 's'",
        );
        expect(changes.rows[0].n).toBe(1);
      } finally {
        await database.pool.query(
          "DROP TRIGGER arbor_test_refuse ON assistant_messages",
        );
      }
    });
  }

  it("(pg Pool) a chain and an append under a given parent are one statement each", async () => {
    await database.truncate();
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    const sent: string[] = [];
    pool.on("connect", (connection) => {
      const query = connection.query.bind(connection) as (
        ...args: unknown[]
      ) => unknown;
      (connection as { query: unknown }).query = (...args: unknown[]) => {
        const [first] = args;
        sent.push(
          typeof first === "string"
            ? first
            : String((first as { text?: unknown }).text),
        );
        return query(...args);
      };
    });
    try {
      const provider = new PostgresSessionProvider(pool, "s");
      await provider.appendMessage(text("a"));
      // The first write also reads the store's settings and registers the session.
      const written = (sql: string) =>
        sql.includes("INSERT INTO assistant_messages");
      sent.length = 0;
      await provider.writeMessages(
        Array.from({ length: 20 }, (_, index) => ({
          message: text(`m${index}`),
        })),
        { parentId: "a" },
      );
      // Before: BEGIN, one insert per message, COMMIT (22).
      expect(sent.filter((sql) => !sql.includes("pg_notify"))).toHaveLength(1);
      expect(sent.filter(written)).toHaveLength(1);
      sent.length = 0;
      await provider.writeMessages([{ message: text("n") }], {
        parentId: "m3",
        requireParent: true,
      });
      expect(sent.filter((sql) => !sql.includes("pg_notify"))).toHaveLength(1);
      expect((await rows(database, "s")).at(-1)).toEqual({
        id: "n",
        parent_id: "m3",
      });
    } finally {
      await pool.end();
    }
  });
});

// --- Internal helpers ---

function text(id: string): SessionMessage {
  return {
    id,
    role: "user",
    parts: [{ type: "text", text: `words of ${id}` }],
  };
}

/** The session's rows in insertion order. */
async function rows(
  database: TestDatabase,
  sessionId: string,
): Promise<Array<{ id: string; parent_id: string | null }>> {
  const result = await database.pool.query(
    "SELECT id, parent_id FROM assistant_messages WHERE session_id = $1 ORDER BY seq",
    [sessionId],
  );
  return result.rows;
}
