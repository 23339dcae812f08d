// The SQLite message store's schema versions (src/backends/sql/sql-schema.ts): a store written by
// each earlier version migrates in place and reads, searches and appends as before; the first use
// of a current store costs one query; an old process meeting a newer schema stops with the typed
// `SCHEMA_VERSION` error and leaves the store as it was; and an old (v9) process appending to a
// v10 store keeps working.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";
import {
  AgentSessionProvider,
  type SessionMessage,
} from "../../src/session/index.js";
import type { SqlProvider } from "../../src/session/contracts/sql-provider.js";
import {
  MIGRATIONS,
  SCHEMA_VERSION,
} from "../../src/backends/sql/sql-schema.js";

const text = (id: string, words: string): SessionMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text: words }],
});

/**
 * A store as version `version` of Arbor left it: its steps applied, a chain of `count` messages
 * written with that version's insert (no `chunked_bytes` before v3, indexed on append in v1) and, from v4, one change-log
 * row per message as those versions wrote them.
 */
function storeAtVersion(version: number, count: number): SqliteHandle {
  const db = openSqlite(":memory:");
  db.sql`CREATE TABLE arbor_meta (key TEXT PRIMARY KEY, value TEXT)`;
  for (let step = 0; step < version; step++) MIGRATIONS[step]!(db);
  db.sql`INSERT INTO arbor_meta VALUES ('session_schema_version', ${String(version)})`;
  let parent: string | null = null;
  for (let index = 0; index < count; index++) {
    const id = `m${index}`;
    const content = JSON.stringify(text(id, `stored message number ${index}`));
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString();
    const [row] = db.sql<{ seq: number }>`
      INSERT INTO assistant_messages (id, session_id, parent_id, role, content, created_at)
      VALUES (${id}, 's', ${parent}, 'user', ${content}, ${at}) RETURNING seq`;
    // Version 1 indexed on append; later versions index at the next search.
    if (version === 1) {
      db.sql`INSERT INTO assistant_fts (rowid, id, session_id, role, content)
        VALUES (${row!.seq}, ${id}, 's', 'user', ${`stored message number ${index}`})`;
    }
    if (version >= 4) {
      db.sql`INSERT INTO arbor_changes (session_id, type, ids, at)
        VALUES ('s', 'append', ${JSON.stringify([id])}, ${at})`;
    }
    parent = id;
  }
  return db;
}

function spy(db: SqliteHandle): { agent: SqlProvider; statements: string[] } {
  const statements: string[] = [];
  const agent: SqlProvider = {
    sql<Row>(strings: TemplateStringsArray, ...values: unknown[]): Row[] {
      statements.push(strings.join("?"));
      return db.sql<Row>(strings, ...values);
    },
    transaction: <T>(fn: () => T): T => db.transaction(fn),
  };
  return { agent, statements };
}

const version = (db: SqliteHandle) =>
  db.sql<{
    value: string;
  }>`SELECT value FROM arbor_meta WHERE key = 'session_schema_version'`[0]
    ?.value;

describe("SQLite stores written by each earlier schema version", () => {
  for (let from = 1; from < SCHEMA_VERSION; from++) {
    it(`a version-${from} store migrates in place: history, latest leaf, search, appends and change notices`, async () => {
      const db = storeAtVersion(from, 30);
      const provider = new AgentSessionProvider(db, "s");
      expect(provider.getHistory().map((m) => m.id)).toEqual(
        Array.from({ length: 30 }, (_, i) => `m${i}`),
      );
      expect(version(db)).toBe(String(SCHEMA_VERSION));
      expect(provider.getLatestLeafId()).toBe("m29");
      expect(provider.searchMessages("number", 100)).toHaveLength(30);

      const seen: string[][] = [];
      const stop = provider.watchChanges((change) => {
        if (change.type === "append") seen.push([...change.ids]);
      });
      expect(provider.appendMessage(text("n1", "after the upgrade"))).toBe(
        true,
      );
      provider.writeMessages([
        { message: text("n2", "batch one") },
        { message: text("n3", "batch two") },
      ]);
      await Promise.resolve();
      await new Promise((resolve) => setTimeout(resolve, 0));
      stop();
      // One notice per write: the single append's, then the batch's.
      expect(seen).toEqual([["n1"], ["n2", "n3"]]);
      expect(
        provider
          .getHistory()
          .map((m) => m.id)
          .slice(-4),
      ).toEqual(["m29", "n1", "n2", "n3"]);
      expect(provider.searchMessages("upgrade", 10).map((h) => h.id)).toEqual([
        "n1",
      ]);
      if (from >= 4) {
        // The log kept its rows and their order across the rebuild.
        const log = db.sql<{ seq: number; ids: string }>`
          SELECT seq, ids FROM arbor_changes ORDER BY seq`;
        expect(log.slice(0, 30).map((row) => JSON.parse(row.ids)[0])).toEqual(
          Array.from({ length: 30 }, (_, i) => `m${i}`),
        );
        expect(log.slice(30).map((row) => JSON.parse(row.ids))).toEqual([
          ["n1"],
          ["n2", "n3"],
        ]);
        expect(log.map((row) => row.seq)).toEqual(
          log.map((_, index) => index + 1),
        );
      }
    });
  }

  it("the change log trims itself to its retention as appends add notices", () => {
    const db = openSqlite(":memory:");
    const provider = new AgentSessionProvider(db, "");
    // Every 1,000th notice trims what is more than 10,000 notices old.
    for (let index = 0; index < 11_000; index++)
      provider.appendMessage(text(`m${index}`, "x"));
    expect(
      db.sql`SELECT COUNT(*) AS n, MIN(seq) AS low, MAX(seq) AS high FROM arbor_changes`,
    ).toEqual([{ n: 10_000, low: 1_001, high: 11_000 }]);
  });
});

describe("the first use of a store object", () => {
  it("costs one schema query when the store is current (a restarted object)", () => {
    const db = openSqlite(":memory:");
    new AgentSessionProvider(db, "s").appendMessage(text("m1", "hello"));
    const restarted = spy(db);
    new AgentSessionProvider(restarted.agent, "s").getLatestLeafId();
    const schema = restarted.statements.filter((statement) =>
      /arbor_meta|sqlite_master|CREATE/i.test(statement),
    );
    expect(schema).toHaveLength(1);
  });
});

describe("two processes opening one new file", () => {
  it("the one whose first schema read fails just before the other creates the tables opens the store", () => {
    const folder = mkdtempSync(join(tmpdir(), "arbor-schema-race-"));
    const file = join(folder, "shared.db");
    const late = openSqlite(file);
    const early = openSqlite(file);
    try {
      // The late process's version read meets no table; the early one then creates and
      // migrates everything before the late one checks whether the table exists.
      let raced = false;
      const agent: SqlProvider = {
        sql<Row>(strings: TemplateStringsArray, ...values: unknown[]): Row[] {
          try {
            return late.sql<Row>(strings, ...values);
          } catch (error) {
            if (!raced && /no such table: arbor_meta/.test(String(error))) {
              raced = true;
              new AgentSessionProvider(early, "s").appendMessage(
                text("m1", "first"),
              );
            }
            throw error;
          }
        },
        transaction: <T>(fn: () => T): T => late.transaction(fn),
      };
      const provider = new AgentSessionProvider(agent, "s");
      expect(provider.getHistory().map((m) => m.id)).toEqual(["m1"]);
      expect(raced).toBe(true);
      expect(provider.appendMessage(text("m2", "second"))).toBe(true);
      expect(
        new AgentSessionProvider(early, "s").getHistory().map((m) => m.id),
      ).toEqual(["m1", "m2"]);
    } finally {
      late.close();
      early.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe("rolling deploys", () => {
  it("a process whose build is older than the store's schema stops with SCHEMA_VERSION on open", () => {
    const db = openSqlite(":memory:");
    new AgentSessionProvider(db).getHistory();
    db.sql`UPDATE arbor_meta SET value = ${String(SCHEMA_VERSION + 1)} WHERE key = 'session_schema_version'`;
    const fresh = { sql: db.sql, transaction: db.transaction };
    expect(() => new AgentSessionProvider(fresh).getHistory()).toThrow(
      expect.objectContaining({ code: "SCHEMA_VERSION" }),
    );
  });

  it("a running process whose next write meets a newer schema throws SCHEMA_VERSION and writes nothing", () => {
    const db = openSqlite(":memory:");
    const provider = new AgentSessionProvider(db, "s");
    provider.appendMessage(text("m1", "before the deploy"));
    // A newer build migrates the store meanwhile, in a way this build's statements cannot use.
    db.sql`ALTER TABLE assistant_messages RENAME TO assistant_messages_next`;
    db.sql`UPDATE arbor_meta SET value = ${String(SCHEMA_VERSION + 1)} WHERE key = 'session_schema_version'`;
    expect(() => provider.appendMessage(text("m2", "during"))).toThrow(
      expect.objectContaining({ code: "SCHEMA_VERSION" }),
    );
    expect(() =>
      provider.writeMessages([
        { message: text("m3", "a") },
        { message: text("m4", "b") },
      ]),
    ).toThrow(expect.objectContaining({ code: "SCHEMA_VERSION" }));
    const rows = db.sql<{ id: string }>`SELECT id FROM assistant_messages_next`;
    expect(rows.map((row) => row.id)).toEqual(["m1"]);
  });

  it("an old (version 9) process appending to a version-10 store keeps working", () => {
    const db = openSqlite(":memory:");
    const provider = new AgentSessionProvider(db, "s");
    provider.appendMessage(text("m1", "new build"));
    // What a version-9 build runs per append: the insert, then its own change-log row.
    const content = JSON.stringify(text("m2", "old build"));
    db.transaction(() => {
      db.sql`INSERT INTO assistant_messages (id, session_id, parent_id, role, content, chunked_bytes, created_at)
        VALUES ('m2', 's', 'm1', 'user', ${content}, NULL, ${new Date().toISOString()})
        ON CONFLICT (session_id, id) DO NOTHING RETURNING seq`;
      db.sql`INSERT INTO arbor_changes (session_id, type, ids, at)
        VALUES ('s', 'append', '["m2"]', ${new Date().toISOString()}) RETURNING seq`;
    });
    provider.appendMessage(text("m3", "new build again"));
    expect(provider.getHistory().map((m) => m.id)).toEqual(["m1", "m2", "m3"]);
    expect(provider.searchMessages("old", 10).map((hit) => hit.id)).toEqual([
      "m2",
    ]);
  });
});
