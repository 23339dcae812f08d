// What `SessionManager.create()`, `Session.create()` and `new Sessions()` take: a Backend, or the
// seed's forms (a `sql` store, a SessionProvider), mapped in one place
// (src/session/facade/seed-targets.ts). A PostgreSQL client itself is refused with INVALID_TARGET
// naming `postgresBackend(client)`; the clients below are constructed without connecting, so no
// server is needed.
import pg from "pg";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import {
  PostgresContextProvider as PostgresContextProviderOfPostgres,
  PostgresSearchProvider as PostgresSearchProviderOfPostgres,
  PostgresSessionProvider as PostgresSessionProviderOfPostgres,
  applyPostgresSchema as applyPostgresSchemaOfPostgres,
  postgresBackend,
} from "../../src/postgres/index.js";
import {
  ArborTypeError,
  InMemorySessionProvider,
  PostgresContextProvider,
  PostgresSearchProvider,
  PostgresSessionProvider,
  Session,
  SessionManager,
  applyPostgresSchema,
  memoryBackend,
  sqlBackend,
} from "../../src/session/index.js";
import { Sessions } from "../../src/sessions/index.js";
import { openSqlite } from "../../src/sqlite/index.js";

const URL = "postgres://nobody@127.0.0.1:1/none";

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("SessionManager.create() with a PostgreSQL client", () => {
  const clients: Array<[string, () => unknown]> = [
    ["a pg Pool", () => new pg.Pool({ connectionString: URL })],
    ["a pg Client", () => new pg.Client({ connectionString: URL })],
    ["a postgres.js sql", () => postgres(URL, { max: 1 })],
    ["an execute connection", () => ({ execute: async () => ({ rows: [] }) })],
  ];
  for (const [label, client] of clients) {
    it(`refuses ${label} with INVALID_TARGET naming postgresBackend(client)`, () => {
      const error = thrown(() => SessionManager.create(client() as never));
      expect(error).toBeInstanceOf(ArborTypeError);
      expect(error).toMatchObject({ code: "INVALID_TARGET" });
      const { message } = error as Error;
      expect(message).toContain(
        "postgresBackend(client) from arbor-memory/postgres",
      );
      // The accepted forms are listed, whatever was passed.
      expect(message).toContain("sqliteBackend(file) from arbor-memory/sqlite");
      expect(message).toContain("SessionManager.inMemory()");
    });
  }

  it("lists the same forms for any other target", () => {
    for (const target of [null, 42, "agent.db", {}, new Map()]) {
      const error = thrown(() => SessionManager.create(target as never));
      expect(error).toMatchObject({ code: "INVALID_TARGET" });
      expect((error as Error).message).toContain("postgresBackend(client)");
    }
  });

  it("takes the client's backend, with no I/O until a method needs it", () => {
    const pool = new pg.Pool({ connectionString: URL });
    const manager = SessionManager.create(postgresBackend(pool));
    expect(manager).toBeInstanceOf(SessionManager);
    // One backend per client: every caller agrees on its identity.
    expect(postgresBackend(pool)).toBe(postgresBackend(pool));
  });
});

describe("the built-in backends of arbor-memory/session", () => {
  it("sqlBackend(store) and memoryBackend() run a manager and its sessions", async () => {
    const db = openSqlite(":memory:");
    try {
      for (const backend of [sqlBackend(db), memoryBackend()]) {
        const manager = SessionManager.create(backend);
        const info = await manager.create("chat");
        await manager.append(info.id, {
          id: "u1",
          role: "user",
          parts: [{ type: "text", text: "hello" }],
        });
        const session = Session.create(backend.session(info.id));
        expect((await session.getHistory()).map((m) => m.id)).toEqual(["u1"]);
      }
      // The seed form and the backend reach the same store.
      const seeded = SessionManager.create(db);
      expect((await seeded.list()).map((info) => info.name)).toEqual(["chat"]);
    } finally {
      db.close();
    }
  });

  it("Session.create(backend) says to open one of its sessions", () => {
    const error = thrown(() => Session.create(memoryBackend() as never));
    expect(error).toMatchObject({ code: "INVALID_TARGET" });
    expect((error as Error).message).toContain(
      "Session.create(backend.session(sessionId))",
    );
  });

  it("new Sessions() takes a Backend, a sql store and a provider, and refuses a client", async () => {
    const db = openSqlite(":memory:");
    try {
      for (const store of [
        memoryBackend(),
        sqlBackend(db),
        db,
        new InMemorySessionProvider(),
      ]) {
        const handle = new Sessions(store).session("s1");
        await handle.appendMessage({
          id: "m1",
          role: "user",
          parts: [{ type: "text", text: "hi" }],
        });
        expect((await handle.getHistory()).map((m) => m.id)).toEqual(["m1"]);
      }
    } finally {
      db.close();
    }
    const error = thrown(
      () => new Sessions(new pg.Pool({ connectionString: URL }) as never),
    );
    expect(error).toMatchObject({ code: "INVALID_TARGET" });
    expect((error as Error).message).toContain("postgresBackend(client)");
  });
});

describe("the seed-named PostgreSQL classes of arbor-memory/session", () => {
  it("are arbor-memory/postgres's own classes, not stand-ins", () => {
    expect(PostgresSessionProvider).toBe(PostgresSessionProviderOfPostgres);
    expect(PostgresContextProvider).toBe(PostgresContextProviderOfPostgres);
    expect(PostgresSearchProvider).toBe(PostgresSearchProviderOfPostgres);
    expect(applyPostgresSchema).toBe(applyPostgresSchemaOfPostgres);
    const pool = new pg.Pool({ connectionString: URL });
    expect(new PostgresSessionProvider(pool, "s")).toBeInstanceOf(
      PostgresSessionProviderOfPostgres,
    );
  });
});
