// `sqliteBackend()` from arbor-memory/sqlite: a SQLite database as a whole store, from a file
// path, an opened better-sqlite3 Database or an openSqlite() handle, over real files.
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  ArborTypeError,
  Session,
  SessionManager,
  isBackend,
  sqlBackend,
} from "../../src/session/index.js";
import {
  openSqlite,
  sqliteBackend,
  type SqliteBackend,
} from "../../src/sqlite/index.js";

const dir = mkdtempSync(join(tmpdir(), "arbor-sqlite-backend-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const text = (id: string, body: string) => ({
  id,
  role: "user" as const,
  parts: [{ type: "text" as const, text: body }],
});

/** Writes a session through the backend's manager, and its API key, then closes nothing. */
async function write(backend: SqliteBackend): Promise<string> {
  const manager = SessionManager.create(backend);
  const info = await manager.create("trip");
  await manager.append(info.id, text("u1", "pack the tent"));
  await Session.create(backend.session(info.id)).appendMessage(
    text("u2", "and the stove"),
  );
  await backend.apiKeys!.create("tenant-a", { name: "ci" });
  return info.id;
}

/** Reads the same file through a connection of its own. */
async function read(file: string, id: string) {
  const handle = openSqlite(file);
  try {
    const manager = SessionManager.create(handle);
    const history = await manager.getSession(id).getHistory();
    return {
      names: (await manager.list()).map((info) => info.name),
      history: history.map((message) => message.id),
      keys: (await sqlBackend(handle).apiKeys!.list()).map((key) => key.tenant),
    };
  } finally {
    handle.close();
  }
}

describe("sqliteBackend()", () => {
  it("opens a file path and stores sessions, messages and API keys in it", async () => {
    const file = join(dir, "path.db");
    const backend = sqliteBackend(file);
    expect(isBackend(backend)).toBe(true);
    expect(backend.name).toBe("sql");
    const id = await write(backend);
    backend.sqlite.close();
    expect(await read(file, id)).toEqual({
      names: ["trip"],
      history: ["u1", "u2"],
      keys: ["tenant-a"],
    });
  });

  it("takes an opened better-sqlite3 Database as it is, one backend per database", async () => {
    const file = join(dir, "database.db");
    const database = new Database(file);
    database.pragma("journal_mode = DELETE");
    try {
      const backend = sqliteBackend(database);
      expect(sqliteBackend(database)).toBe(backend);
      expect(backend.sqlite.database).toBe(database);
      const id = await write(backend);
      // The database's own settings are left as they were.
      expect(database.pragma("journal_mode", { simple: true })).toBe("delete");
      expect(await read(file, id)).toEqual({
        names: ["trip"],
        history: ["u1", "u2"],
        keys: ["tenant-a"],
      });
    } finally {
      database.close();
    }
  });

  it("takes an openSqlite() handle, sharing the sql backend's identity", async () => {
    const handle = openSqlite(join(dir, "handle.db"));
    try {
      const backend = sqliteBackend(handle);
      expect(backend.sqlite).toBe(handle);
      expect(backend.identity).toBe(sqlBackend(handle).identity);
      expect(sqliteBackend(handle)).toBe(backend);
      // The seed form over the same handle sees what the backend wrote.
      const id = await write(backend);
      expect(
        (await SessionManager.create(handle).getSession(id).getHistory()).map(
          (message) => message.id,
        ),
      ).toEqual(["u1", "u2"]);
    } finally {
      handle.close();
    }
  });

  it("refuses anything else with INVALID_TARGET, and a bad path as openSqlite() does", () => {
    for (const target of [null, 42, {}, { sql: "no" }]) {
      let error: unknown;
      try {
        sqliteBackend(target as never);
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(ArborTypeError);
      expect(error).toMatchObject({ code: "INVALID_TARGET" });
    }
    expect(() => sqliteBackend("")).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT" }),
    );
    expect(() => sqliteBackend(dir)).toThrow(
      expect.objectContaining({ code: "STORAGE_UNAVAILABLE" }),
    );
  });
});
