// Hostile input to the library (test/trust/hostile/library-cases.ts) on the in-memory store and on
// a SQLite file: each answer is a value or a typed ArborError, and afterwards PRAGMA
// integrity_check and FTS5's integrity-check pass, a known message reads back and search finds it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import {
  InMemorySessionProvider,
  InMemorySessionRegistry,
  Session,
  SessionManager,
} from "../../src/session/index.js";
import { MemoryStore } from "../../src/backends/memory/memory-store.js";
import { memoryBackend } from "../../src/backends/memory/memory-backend.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";
import type { HostileBackend } from "./hostile/hostile-support.js";
import { cyclicParents, HOSTILE_CASES } from "./hostile/library-cases.js";

const RUNS = Number(process.env.ARBOR_HOSTILE_RUNS ?? 300);

describe("hostile input to the library in memory", () => {
  const store = new MemoryStore();
  const root = new InMemorySessionProvider({}, store);
  const backend: HostileBackend = {
    name: "memory",
    manager: () =>
      new SessionManager({
        registry: new InMemorySessionRegistry(store),
        openSession: (id) => Session.create(root).forSession(id),
        backend: memoryBackend(store),
      }),
    integrity: async () => {},
    runs: RUNS,
  };
  for (const [name, scenario] of Object.entries(HOSTILE_CASES))
    it(name, () => scenario(backend), 120_000);
});

describe("hostile input to the library on a SQLite file", () => {
  const folder = mkdtempSync(join(tmpdir(), "arbor-hostile-"));
  const db: SqliteHandle = openSqlite(join(folder, "hostile.db"));
  afterAll(() => {
    db.close();
    rmSync(folder, { recursive: true, force: true });
  });
  const backend = {
    name: "sqlite",
    manager: () => SessionManager.create(db),
    insertRaw: async (
      sessionId: string,
      rows: ReadonlyArray<{
        id: string;
        parentId: string | null;
        text: string;
      }>,
    ) => {
      for (const row of rows)
        db.sql`INSERT INTO assistant_messages (id, session_id, parent_id, role, content)
          VALUES (${row.id}, ${sessionId}, ${row.parentId}, 'user',
            ${JSON.stringify({ id: row.id, role: "user", parts: [{ type: "text", text: row.text }] })})`;
    },
    integrity: async () => {
      const result = db.database.pragma("integrity_check", { simple: true });
      if (result !== "ok")
        throw new Error(`integrity_check: ${String(result)}`);
      db.sql`INSERT INTO assistant_fts (assistant_fts) VALUES ('integrity-check')`;
    },
    runs: RUNS,
  } satisfies HostileBackend;
  for (const [name, scenario] of Object.entries(HOSTILE_CASES))
    it(name, () => scenario(backend), 120_000);
  it(
    "cyclic parents written as raw rows: every read terminates with a sane path",
    () => cyclicParents(backend),
    120_000,
  );
});
