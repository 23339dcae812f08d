// Erase and prune (arbor-memory/testing: src/testing/erase/erase-scenarios.ts) on PostgreSQL (ARBOR_TEST_PG_URL), a
// throwaway database: after each erase every table of the public schema and the audit sink are
// scanned for the erased text (bytea in hex, tsvector lexemes in lowercase).
import { postgresBackend } from "../../src/postgres/index.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { InMemoryAuditSink, SessionManager } from "../../src/session/index.js";
import {
  createTestDatabase,
  describePostgres,
  executeConnection,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { dumpAllTables } from "../manager/support/postgres-manager.js";
import {
  deepText,
  ERASE_SCENARIOS,
  type EraseBackend,
} from "../../src/testing/erase/erase-scenarios.js";

describePostgres("erase and prune on PostgreSQL", () => {
  let database: TestDatabase | undefined;
  const sink = new InMemoryAuditSink();
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());
  const backend: EraseBackend = {
    manager: () =>
      SessionManager.create(postgresBackend(database!.pool))
        .withContext("memory")
        .withAudit(sink),
    auditCount: (id) => sink.forSession(id).length,
    dump: async () =>
      `${JSON.stringify(await dumpAllTables(database!))}\n${deepText(sink.events)}`,
    dumpWithoutAudit: async () =>
      JSON.stringify(await dumpAllTables(database!)),
    expects: { separateIndex: false, changeLog: true },
  };
  for (const [name, scenario] of Object.entries(ERASE_SCENARIOS))
    it(name, () => scenario(backend), 60_000);

  it("an execute-style connection: erase() throws NOT_SUPPORTED and writes nothing; a dry-run prune counts", async () => {
    const manager = SessionManager.create(
      postgresBackend(executeConnection(database!.pool)),
    );
    const { id } = await manager.create("execute", { ownerId: "execute" });
    await manager.append(id, {
      id: "m1",
      role: "user",
      parts: [{ type: "text", text: "hello" }],
    });
    await expect(manager.erase({ sessionId: id })).rejects.toMatchObject({
      code: "NOT_SUPPORTED",
    });
    expect(await manager.getHistory(id)).toHaveLength(1);
    const preview = await manager.prune({
      ownerId: "execute",
      keepLatest: 0,
      dryRun: true,
    });
    expect(preview).toMatchObject({
      sessions: 1,
      messages: 1,
      sessionIds: [id],
    });
    expect(await manager.get(id)).not.toBeNull();
  });
});
