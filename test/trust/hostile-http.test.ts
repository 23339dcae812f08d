// Hostile input to the HTTP API (test/trust/hostile/http-cases.ts) on memory, a SQLite file and
// PostgreSQL: no 5xx, errors in the error shape, and afterwards PRAGMA integrity_check and FTS5's
// integrity-check pass (SQLite), a seeded message reads back and search finds it.
import { postgresBackend } from "../../src/postgres/index.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { hostileHttp } from "./hostile/http-cases.js";

describe("hostile input to the HTTP API", () => {
  it("in memory", async () => {
    const manager = SessionManager.inMemory();
    expect(
      await hostileHttp({ manager: () => manager, integrity: async () => {} }),
    ).toEqual([]);
  }, 300_000);

  it("on a SQLite file", async () => {
    const folder = mkdtempSync(join(tmpdir(), "arbor-hostile-http-"));
    const db = openSqlite(join(folder, "api.db"));
    try {
      const failures = await hostileHttp({
        manager: () => SessionManager.create(db),
        integrity: async () => {
          expect(db.database.pragma("integrity_check", { simple: true })).toBe(
            "ok",
          );
          db.sql`INSERT INTO assistant_fts (assistant_fts) VALUES ('integrity-check')`;
        },
      });
      expect(failures).toEqual([]);
    } finally {
      db.close();
      rmSync(folder, { recursive: true, force: true });
    }
  }, 300_000);
});

describePostgres("hostile input to the HTTP API on PostgreSQL", () => {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  it("through a pg Pool", async () => {
    const failures = await hostileHttp({
      manager: () => SessionManager.create(postgresBackend(database!.pool)),
      integrity: async () => {
        await database!.pool.query("SELECT count(*) FROM assistant_messages");
      },
    });
    expect(failures).toEqual([]);
  }, 300_000);
});
