// Recall (test/recall/recall-scenarios.ts) in memory and on SQLite files with and without
// sqlite-vec; the SQLite restart is a new connection to the same file.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  InMemorySessionProvider,
  InMemorySessionRegistry,
  Session,
  SessionManager,
} from "../../src/session/index.js";
import { embeddingStoreFor } from "../../src/session/embeddings/embedding-stores.js";
import { memoryEmbeddings } from "../../src/backends/memory/memory-embedding-access.js";
import { MemoryStore } from "../../src/backends/memory/memory-store.js";
import { memoryBackend } from "../../src/backends/memory/memory-backend.js";
import { SqlEmbeddingStore } from "../../src/backends/sql/sql-embeddings.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";
import { RECALL_SCENARIOS, type RecallBackend } from "./recall-scenarios.js";

describe("recall in memory", () => {
  const store = new MemoryStore();
  const root = new InMemorySessionProvider({}, store);
  // Counted without opening the embedding store: before the first index there is nothing.
  const rows = async (sessionId: string) => {
    const embeddings = memoryEmbeddings(store);
    return (await embeddings.exists())
      ? (await embeddingStoreFor(embeddings)).count(sessionId)
      : { vectors: 0, queued: 0, models: [] };
  };
  const backend: RecallBackend = {
    manager: () =>
      new SessionManager({
        registry: new InMemorySessionRegistry(store),
        openSession: (id) => Session.create(root).forSession(id),
        backend: memoryBackend(store),
      }),
    rows,
    totals: async () => {
      const total = { vectors: 0, queued: 0 };
      for (const sessionId of store.sessions.keys()) {
        const { vectors, queued } = await rows(sessionId);
        total.vectors += vectors;
        total.queued += queued;
      }
      return total;
    },
    schema: async () => null,
  };
  for (const [name, scenario] of Object.entries(RECALL_SCENARIOS))
    it(name, () => scenario(backend), 60_000);
});

for (const sqliteVec of [true, false]) {
  describe(`recall on a SQLite file ${sqliteVec ? "with" : "without"} sqlite-vec`, () => {
    const folder = mkdtempSync(join(tmpdir(), "arbor-recall-"));
    const file = join(folder, "recall.db");
    const handles: SqliteHandle[] = [];
    const open = () => {
      const db = openSqlite(file, { sqliteVec });
      handles.push(db);
      return db;
    };
    const db = open();
    afterAll(() => {
      for (const handle of handles) handle.close();
      rmSync(folder, { recursive: true, force: true });
    });
    it("ranks with the expected engine", () => {
      expect(new SqlEmbeddingStore(db).engine).toBe(
        sqliteVec ? "sqlite-vec" : "exact",
      );
    });
    const backend: RecallBackend = {
      manager: () => SessionManager.create(db),
      restart: () => SessionManager.create(open()),
      rows: async (sessionId) => sqliteRows(db, sessionId),
      totals: async () => sqliteTotals(db),
      schema: async () => sqliteSchema(db),
    };
    for (const [name, scenario] of Object.entries(RECALL_SCENARIOS))
      it(name, () => scenario(backend), 60_000);
  });
}

function sqliteRows(db: SqliteHandle, sessionId: string) {
  if (sqliteSchema(db).length === 0)
    return { vectors: 0, queued: 0, models: [] };
  const count = (table: string) =>
    Number(
      (
        db.database
          .prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE session_id = ?`)
          .get(sessionId) as { n: number }
      ).n,
    );
  const models = (
    db.database
      .prepare(
        "SELECT DISTINCT model FROM arbor_embeddings WHERE session_id = ? ORDER BY model",
      )
      .all(sessionId) as Array<{ model: string }>
  ).map((row) => row.model);
  return {
    vectors: count("arbor_embeddings"),
    queued: count("arbor_embedding_queue"),
    models,
  };
}

function sqliteTotals(db: SqliteHandle) {
  const tables = sqliteSchema(db);
  const count = (table: string) =>
    tables.includes(table)
      ? Number(
          (
            db.database.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as {
              n: number;
            }
          ).n,
        )
      : 0;
  return {
    vectors: count("arbor_embeddings"),
    queued: count("arbor_embedding_queue"),
  };
}

/** The embedding tables and triggers in the file, sorted. */
function sqliteSchema(db: SqliteHandle): string[] {
  return (
    db.database
      .prepare(
        "SELECT name FROM sqlite_master WHERE name LIKE 'arbor\\_embed%' ESCAPE '\\' ORDER BY name",
      )
      .all() as Array<{ name: string }>
  ).map((row) => row.name);
}
