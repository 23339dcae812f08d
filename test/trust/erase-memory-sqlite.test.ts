// Erase and prune (arbor-memory/testing: src/testing/erase/erase-scenarios.ts) on the in-memory store and on a SQLite
// file: after each erase every table (FTS5 shadow tables included) and the audit sink are scanned
// for the erased text.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import {
  InMemoryAuditSink,
  InMemorySessionProvider,
  InMemorySessionRegistry,
  Session,
  SessionManager,
  SqlAuditSink,
} from "../../src/session/index.js";
import { MemoryStore } from "../../src/backends/memory/memory-store.js";
import { memoryBackend as memoryStoreBackend } from "../../src/backends/memory/memory-backend.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";
import { dumpSqlite } from "./support/sqlite-dump.js";
import {
  deepText,
  ERASE_SCENARIOS,
  type EraseBackend,
} from "../../src/testing/erase/erase-scenarios.js";

// Each scenario gets its own store: an embedding worker started by one scenario must not serve
// the next one's queue.
function memoryBackend(): EraseBackend {
  const store = new MemoryStore();
  const root = new InMemorySessionProvider({}, store);
  const sink = new InMemoryAuditSink();
  return {
    manager: () =>
      new SessionManager({
        registry: new InMemorySessionRegistry(store),
        openSession: (id) => Session.create(root).forSession(id),
        backend: memoryStoreBackend(store),
      })
        .withContext("memory")
        .withAudit(sink),
    auditCount: (id) => sink.forSession(id).length,
    dump: () => deepText([store, sink.events]),
    dumpWithoutAudit: () => deepText(store),
    expects: { separateIndex: false, changeLog: false },
  };
}

function sqliteBackend(file: string, handles: SqliteHandle[]): EraseBackend {
  const db = openSqlite(file);
  handles.push(db);
  const sink = new SqlAuditSink(db);
  return {
    manager: () =>
      SessionManager.create(db).withContext("memory").withAudit(sink),
    auditCount: (id) => sink.list(id).length,
    dump: () => dumpSqlite(db),
    dumpWithoutAudit: () =>
      dumpSqlite(db)
        .split("\n")
        .filter((line) => !line.startsWith("arbor_audit_log:"))
        .join("\n"),
    expects: { separateIndex: true, changeLog: true },
  };
}

describe("erase and prune in memory", () => {
  for (const [name, scenario] of Object.entries(ERASE_SCENARIOS))
    it(name, () => scenario(memoryBackend()), 60_000);
});

describe("erase and prune on a SQLite file", () => {
  const folder = mkdtempSync(join(tmpdir(), "arbor-erase-"));
  const handles: SqliteHandle[] = [];
  afterAll(() => {
    for (const handle of handles) handle.close();
    rmSync(folder, { recursive: true, force: true });
  });
  Object.entries(ERASE_SCENARIOS).forEach(([name, scenario], index) =>
    it(
      name,
      () => scenario(sqliteBackend(join(folder, `erase-${index}.db`), handles)),
      60_000,
    ),
  );
});
