// The SessionManager suite on a real PostgreSQL server (ARBOR_TEST_PG_URL), over a pg.Pool and
// over an execute-style connection (deleteSession takes another path there). Each runner uses
// its own throwaway database, emptied before every case and dropped afterwards.
import { postgresBackend } from "../../src/postgres/index.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgresSessionRegistry } from "../../src/postgres/index.js";
import { SessionManager, type SessionInfo } from "../../src/session/index.js";
import { compareListOrder } from "../../src/session/contracts/registry.js";
import {
  dumpAllTables,
  runPostgresManagerConformance,
} from "./support/postgres-manager.js";
import {
  createTestDatabase,
  describePostgres,
  executeConnection,
  type TestDatabase,
} from "../providers/postgres-database.js";

runPostgresManagerConformance(
  "PostgreSQL over a pg.Pool",
  (database) => database.pool,
);

runPostgresManagerConformance(
  "PostgreSQL over an execute-style connection",
  (database) => executeConnection(database.pool),
);

describePostgres("PostgresSessionRegistry on PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  const info = (id: string, at: string, created = at): SessionInfo => ({
    id,
    name: id,
    parent_session_id: null,
    model: null,
    source: null,
    input_tokens: 0,
    output_tokens: 0,
    estimated_cost: 0,
    end_reason: null,
    created_at: created,
    updated_at: at,
  });

  it("lists in compareListOrder (ids in code-point order) and pages through ties", async () => {
    await database.truncate();
    // A linguistic collation on the column (when the server has ICU) must not change the order.
    const [icu] = (
      await database.pool.query(
        "SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu'",
      )
    ).rows;
    if (icu)
      await database.pool.query(
        `ALTER TABLE assistant_sessions ALTER COLUMN id TYPE TEXT COLLATE "und-x-icu"`,
      );
    const registry = new PostgresSessionRegistry(database.pool);
    const rows = [
      info("b", "2024-01-01T00:00:00.000Z"),
      info("B", "2024-01-01T00:00:00.000Z"),
      info("_x", "2024-01-01T00:00:00.000Z"),
      info("a-1", "2024-01-01T00:00:00.000Z"),
      info("a1", "2024-01-01T00:00:00.000Z"),
      info("Z", "2024-01-01T00:00:00.000Z", "2023-12-31T23:59:59.999Z"),
      info("newer", "2024-01-01T00:00:00.001Z"),
    ];
    for (const row of rows) await registry.insert(row);
    const expected = [...rows].sort(compareListOrder).map((row) => row.id);
    expect((await registry.list({})).map((row) => row.id)).toEqual(expected);
    const paged: string[] = [];
    let after: SessionInfo | undefined;
    for (;;) {
      const page = await registry.list({
        limit: 2,
        ...(after ? { after } : {}),
      });
      if (page.length === 0) break;
      paged.push(...page.map((row) => row.id));
      after = page.at(-1);
    }
    expect(paged).toEqual(expected);
    expect(await registry.get("b")).toEqual(rows[0]);
    if (icu)
      await database.pool.query(
        `ALTER TABLE assistant_sessions ALTER COLUMN id TYPE TEXT COLLATE "default"`,
      );
  });

  it("stores timestamps at millisecond precision, read back as ISO-8601 UTC", async () => {
    await database.truncate();
    const registry = new PostgresSessionRegistry(database.pool);
    await registry.insert(
      info("s", "2024-05-06T07:08:09.123456+02:00", "2024-05-06T05:08:09.1Z"),
    );
    const row = await registry.get("s");
    expect([row!.created_at, row!.updated_at]).toEqual([
      "2024-05-06T05:08:09.100Z",
      "2024-05-06T05:08:09.123Z",
    ]);
  });

  it("search fills its windows from registered sessions when newer matches are not", async () => {
    await database.truncate();
    const manager = SessionManager.create(postgresBackend(database.pool));
    const notes = (id: string, count: number) =>
      Array.from({ length: count }, (_, at) => ({
        id: `${id}-${at}`,
        role: "user" as const,
        parts: [{ type: "text" as const, text: `harbor note ${at}` }],
      }));
    await manager.create("kept");
    await manager.getSession("kept").appendAll(notes("kept", 10));
    // Newer, and more matches than the rare-term budget (1,600 for a window of 200), so every
    // arm ranks the newest 200 matches, all of them the loose session's.
    await manager.create("loose");
    await manager.getSession("loose").appendAll(notes("loose", 1_700));
    await database.pool.query(
      "DELETE FROM assistant_sessions WHERE id = 'loose'",
    );
    for (const [query, match] of [
      ["harbor note", "any"],
      ["harbor note", "all"],
      ["harbor", "any"],
    ] as const)
      expect(
        (await manager.search(query, { match, limit: 5 })).map(
          (hit) => hit.sessionId,
        ),
        `${query} (${match})`,
      ).toEqual(Array(5).fill("kept"));
  });

  it("search finds nothing of a session without a registry row, in every candidate arm", async () => {
    await database.truncate();
    const manager = SessionManager.create(postgresBackend(database.pool));
    // "harbor" is common (more than a rank window of matches), "zephyr" rare, so any-term search
    // reads the all-terms, any-term and rare-term arms; the per-row registry check is in each.
    for (const id of ["kept", "loose"]) {
      const messages = Array.from({ length: 260 }, (_, at) => ({
        id: `${id}-${at}`,
        role: "user" as const,
        parts: [
          {
            type: "text" as const,
            text: at === 0 ? "zephyr harbor" : `harbor note ${at}`,
          },
        ],
      }));
      await manager.create(id);
      await manager.getSession(id).appendAll(messages);
    }
    await database.pool.query(
      "DELETE FROM assistant_sessions WHERE id = 'loose'",
    );
    // The loose session's matches are the newest: the check must drop them and still fill the
    // limit from the kept session (it runs on each arm's ordered matches, before the limit).
    const expected = {
      "zephyr harbor": { any: 50, all: 1 },
      harbor: { any: 50, all: 50 },
      zephyr: { any: 1, all: 1 },
    };
    for (const query of ["zephyr harbor", "harbor", "zephyr"] as const) {
      for (const match of ["any", "all"] as const) {
        const hits = await manager.search(query, { match, limit: 50 });
        expect(hits.length, `${query} (${match})`).toBe(expected[query][match]);
        expect(
          hits.filter((hit) => hit.sessionId !== "kept"),
          `${query} (${match})`,
        ).toEqual([]);
      }
    }
    const [top] = await manager.search("zephyr harbor", { limit: 1 });
    expect(top?.id).toBe("kept-0");
  });

  for (const kind of ["pool", "execute"] as const) {
    it(`deleteSession (${kind}): unregistered ids delete nothing; racing deletes, one wins`, async () => {
      await database.truncate();
      const client =
        kind === "pool" ? database.pool : executeConnection(database.pool);
      const manager = SessionManager.create(
        postgresBackend(client),
      ).withContext("memory");
      const session = manager.getSession("loose");
      await session.appendMessage({
        id: "m1",
        role: "user",
        parts: [{ type: "text", text: "kept" }],
      });
      await session.replaceContextBlock("memory", "kept");
      // The first message registered the session; rows without a registry row are what an older
      // Arbor left, so its row is taken away again here.
      await database.pool.query(
        "DELETE FROM assistant_sessions WHERE id = 'loose'",
      );
      const registry = new PostgresSessionRegistry(client);
      await registry.setConfig("loose", "owner", "alice");
      const before = await dumpAllTables(database);
      expect(await registry.deleteSession("loose", ["memory_loose"])).toBe(
        false,
      );
      expect(await dumpAllTables(database)).toEqual(before);

      const infos = await Promise.all(
        Array.from({ length: 4 }, (_, index) => manager.create(`s${index}`)),
      );
      for (const { id } of infos) {
        await manager.append(id, {
          id: "m1",
          role: "user",
          parts: [{ type: "text", text: "hello" }],
        });
      }
      const results = await Promise.all(
        infos.flatMap(({ id }) => [manager.delete(id), manager.delete(id)]),
      );
      expect(results.filter(Boolean)).toHaveLength(infos.length);
      const dump = JSON.stringify(await dumpAllTables(database));
      for (const { id } of infos) expect(dump.includes(id)).toBe(false);
      expect(await manager.list()).toEqual([]);
    });

    it(`deleteSession (${kind}) is atomic against concurrent appends: what remains is one whole chain`, async () => {
      await database.truncate();
      const client =
        kind === "pool" ? database.pool : executeConnection(database.pool);
      const manager = SessionManager.create(postgresBackend(client));
      const { id } = await manager.create("busy");
      let deleted: Promise<boolean> | undefined;
      await Promise.all(
        Array.from({ length: 6 }, async (_, writer) => {
          for (let index = 0; index < 30; index++) {
            if (writer === 0 && index === 10) deleted = manager.delete(id);
            await manager.append(id, {
              id: `w${writer}-${index}`,
              role: "user",
              parts: [{ type: "text", text: "x" }],
            });
          }
        }),
      );
      expect(await deleted).toBe(true);
      const { rows } = await database.pool.query<{
        id: string;
        parent_id: string | null;
      }>(
        "SELECT id, parent_id FROM assistant_messages WHERE session_id = $1 ORDER BY seq",
        [id],
      );
      // Rows appended after the delete start a new chain; none points at a deleted row.
      const present = new Set(rows.map((row) => row.id));
      expect(rows.length < 180).toBe(true);
      expect(rows.filter((row) => row.parent_id === null).length).toBe(
        rows.length > 0 ? 1 : 0,
      );
      expect(
        rows.filter(
          (row) => row.parent_id !== null && !present.has(row.parent_id),
        ),
      ).toEqual([]);
    });
  }
});
