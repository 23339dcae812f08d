// Hostile input to the library (test/trust/hostile/library-cases.ts) on PostgreSQL: each answer
// is a value or a typed ArborError, and afterwards a known message reads back, search finds it
// and the tables answer a full scan (amcheck is not assumed to be installed).
import { postgresBackend } from "../../src/postgres/index.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SessionManager } from "../../src/session/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import type { HostileBackend } from "./hostile/hostile-support.js";
import { cyclicParents, HOSTILE_CASES } from "./hostile/library-cases.js";

const RUNS = Number(process.env.ARBOR_HOSTILE_RUNS ?? 300) / 3;

describePostgres("hostile input to the library on PostgreSQL", () => {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  const backend = {
    name: "postgres",
    manager: () => SessionManager.create(postgresBackend(database!.pool)),
    insertRaw: async (
      sessionId: string,
      rows: ReadonlyArray<{
        id: string;
        parentId: string | null;
        text: string;
      }>,
    ) => {
      for (const row of rows)
        await database!.pool.query(
          `INSERT INTO assistant_messages (id, session_id, parent_id, role, content, text_content)
           VALUES ($1, $2, $3, 'user', $4, $5)`,
          [
            row.id,
            sessionId,
            row.parentId,
            JSON.stringify({
              id: row.id,
              role: "user",
              parts: [{ type: "text", text: row.text }],
            }),
            row.text,
          ],
        );
    },
    integrity: async () => {
      for (const table of [
        "assistant_messages",
        "assistant_sessions",
        "assistant_compactions",
        "assistant_config",
      ])
        await database!.pool.query(`SELECT count(*) FROM ${table}`);
    },
    runs: RUNS,
  } satisfies HostileBackend;

  for (const [name, scenario] of Object.entries(HOSTILE_CASES))
    it(name, () => scenario(backend), 180_000);
  it(
    "cyclic parents written as raw rows: every read terminates with a sane path",
    () => cyclicParents(backend),
    180_000,
  );

  it("a lookup by an id PostgreSQL text cannot hold is a typed error, not a driver error", async () => {
    const manager = backend.manager();
    const { id } = await manager.create("lookups");
    const session = manager.getSession(id);
    await session.appendMessage({
      id: "m1",
      role: "user",
      parts: [{ type: "text", text: "hello" }],
    });
    for (const lookup of [
      () => session.getMessage("a\u0000b"),
      () => session.getHistory("a\u0000b"),
      () => session.deleteMessages(["a\u0000b"]),
      () => session.deleteMessages(["\udfa9"]),
      () => manager.erase({ sessionId: id, messageIds: ["x\u0000"] }),
      () => manager.get("a\u0000b"),
    ])
      await expect(lookup()).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
      });
    expect((await session.getHistory()).map((m) => m.id)).toEqual(["m1"]);
  });
});
