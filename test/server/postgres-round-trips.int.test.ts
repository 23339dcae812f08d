// Statements per request on PostgreSQL (docs/postgres.md, "Round trips"): every statement any
// connection of the pool sends is counted, so the numbers are what the database sees. A count is
// behaviour, not timing: a route that grows a query per listed session or a read before every
// write fails here, however fast the machine.
import { postgresBackend } from "../../src/postgres/index.js";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createApp } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import { PostgresApiKeyStore } from "../../src/backends/postgres/postgres-api-keys.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { client, text, type Answer, type Call } from "./support/client.js";

/** The default page of `GET /v1/sessions`. */
const PAGE = 50;

describePostgres("statements per request on PostgreSQL (pg Pool)", () => {
  let database: TestDatabase | undefined;
  let pool: pg.Pool;
  let call: Call;
  const sent: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
    // DROP DATABASE … WITH (FORCE) in drop() ends connections the closing pool may still hold:
    // without a listener that error would be thrown from the pool as uncaught.
    pool.on("error", () => undefined);
    pool.on("connect", (connection) => countStatements(connection, sent));
    call = client(
      createApp({ manager: SessionManager.create(postgresBackend(pool)) }),
    );
  }, 60_000);

  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  }, 60_000);

  /** The statements `request` sends, once the change announcement after a write went out too. */
  async function statementsOf(request: () => Promise<unknown>) {
    await settle();
    sent.length = 0;
    await request();
    await settle();
    return sent.filter((sql) => !sql.startsWith("SELECT pg_notify"));
  }

  it("an append, a history read and a page of the list", async () => {
    const ids: string[] = [];
    for (let index = 0; index < PAGE; index++) {
      const created = await call("POST", "/v1/sessions", {
        json: { name: `S${index}`, metadata: { n: String(index) } },
      });
      ids.push(created.body.id as string);
      await call("POST", `/v1/sessions/${created.body.id}/messages`, {
        json: { message: text(`m${index}`, "Hello") },
      });
    }
    const target = ids[0]!;

    const append = await statementsOf(async () => {
      const answer = await call("POST", `/v1/sessions/${target}/messages`, {
        json: { message: text("second", "Again") },
      });
      expect(answer.status).toBe(201);
    });
    // A session that does not exist gets its 404 from the insert, which wrote nothing (its first
    // opening reads the session's settings too).
    const missing = await statementsOf(async () => {
      const answer = await call("POST", `/v1/sessions/nowhere/messages`, {
        json: { message: text("lost", "Hello?") },
      });
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe("SESSION_NOT_FOUND");
    });
    expect(
      missing.filter((sql) => sql.includes("assistant_messages")),
    ).toHaveLength(1);
    const stored = await database!.pool.query(
      "SELECT (SELECT count(*) FROM assistant_messages WHERE session_id = 'nowhere')::int AS messages, (SELECT count(*) FROM assistant_sessions WHERE id = 'nowhere')::int AS rows",
    );
    expect(stored.rows[0]).toEqual({ messages: 0, rows: 0 });
    const retry = await statementsOf(async () => {
      const answer = await call("POST", `/v1/sessions/${target}/messages`, {
        json: { message: text("second", "Again") },
      });
      expect(answer.status).toBe(200);
    });
    const history = await statementsOf(async () => {
      const answer = await call("GET", `/v1/sessions/${target}/history`);
      expect(answer.body.messages.map((m: { id: string }) => m.id)).toEqual([
        "m0",
        "second",
      ]);
    });
    const search = await statementsOf(async () => {
      const answer = await call("GET", `/v1/sessions/${target}/search?q=hello`);
      expect(answer.body.results.map((m: { id: string }) => m.id)).toEqual([
        "m0",
      ]);
    });
    const list = await statementsOf(async () => {
      const answer = await call("GET", "/v1/sessions");
      expect(answer.body.sessions).toHaveLength(PAGE);
      const row = answer.body.sessions.find(
        (session: { id: string }) => session.id === target,
      );
      expect(row).toMatchObject({ messageCount: 2, metadata: { n: "0" } });
    });
    // Before: 3 (the access check, the insert, the registry touch), 4 (the access check, the
    // leaf, the path, the overlays) and 151 (1 + 3 per listed session). Without auth the insert
    // checks that the session exists, and a history with messages needs no access check.
    expect({
      append: append.length,
      retry: retry.length,
      history: history.length,
      search: search.length,
      list: list.length,
    }).toEqual({ append: 1, retry: 2, history: 1, search: 1, list: 1 });
    // The append's registry touch rides in its insert: the row moved to the top of the list.
    const top = await call("GET", "/v1/sessions?limit=1");
    expect(top.body.sessions[0].id).toBe(target);

    // Every page costs one statement, the next one too.
    const next = await statementsOf(async () => {
      const first = await call("GET", "/v1/sessions?limit=20");
      const second = await call(
        "GET",
        `/v1/sessions?limit=20&cursor=${first.body.nextCursor}`,
      );
      expect(second.body.sessions).toHaveLength(20);
    });
    expect(next).toHaveLength(2);

    // An append under an explicit parent: the insert checks the parent under the session lock.
    // Before: 2 (a read of the parent, then the insert).
    const underParent = await statementsOf(async () => {
      const answer = await call("POST", `/v1/sessions/${target}/messages`, {
        json: { message: text("third", "Under m0"), parentId: "m0" },
      });
      expect(answer.status).toBe(201);
    });
    expect(underParent).toHaveLength(1);
    // A parent that is not in the session (unknown, or another session's message) answers 404
    // from that same statement, and nothing is written: never a root.
    for (const parentId of ["nowhere", "m1"]) {
      const refused = await statementsOf(async () => {
        const answer = await call("POST", `/v1/sessions/${target}/messages`, {
          json: { message: text("orphan", "Lost"), parentId },
        });
        expect([answer.status, answer.body.error.code]).toEqual([
          404,
          "MESSAGE_NOT_FOUND",
        ]);
      });
      expect(refused).toHaveLength(1);
    }
    const orphans = await database!.pool.query(
      "SELECT count(*)::int AS n FROM assistant_messages WHERE id = 'orphan'",
    );
    expect(orphans.rows[0].n).toBe(0);
    // A missing parent in a missing session is the session's 404.
    const nowhere = await call("POST", "/v1/sessions/nowhere/messages", {
      json: { message: text("lost", "Hello?"), parentId: "m0" },
    });
    expect([nowhere.status, nowhere.body.error.code]).toEqual([
      404,
      "SESSION_NOT_FOUND",
    ]);
  }, 120_000);

  it("a create is its insert: the answer is what it wrote, as a read gives it", async () => {
    // The first request also checks the schema's version: not part of a create.
    await call("GET", "/v1/sessions?limit=1");
    for (const json of [
      { name: "Bare" },
      { name: "Described", ownerId: "owner-1", metadata: { b: "2", a: "1" } },
    ]) {
      let created: Answer | undefined;
      const statements = await statementsOf(async () => {
        created = await call("POST", "/v1/sessions", { json });
        expect(created.status).toBe(201);
      });
      // Before: 4 (the insert, then the owner, the metadata and the message count read back).
      expect(statements).toHaveLength(1);
      const read = await call("GET", `/v1/sessions/${created!.body.id}`);
      expect(created!.body).toEqual(read.body);
      // The metadata's keys in the order a read gives them.
      expect(Object.keys(created!.body.metadata)).toEqual(
        Object.keys(read.body.metadata),
      );
      expect(created!.body).toMatchObject({
        ownerId: json.ownerId ?? null,
        metadata: json.metadata ?? {},
        messageCount: 0,
      });
    }
  }, 60_000);

  it("with auth: the tenant's check is one read of the session's owner", async () => {
    const keys = new PostgresApiKeyStore(pool);
    const { key } = await keys.create("tenant-a");
    const { key: other } = await keys.create("tenant-b");
    const tenant = client(
      createApp({
        manager: SessionManager.create(postgresBackend(pool)),
        auth: keys,
      }),
      key,
    );
    const { id } = (
      await tenant("POST", "/v1/sessions", { json: { name: "Owned" } })
    ).body;
    await tenant("POST", `/v1/sessions/${id}/messages`, {
      json: { message: text("o1", "Hello") },
    });
    const append = await statementsOf(async () => {
      const answer = await tenant("POST", `/v1/sessions/${id}/messages`, {
        json: { message: text("o2", "Again") },
      });
      expect(answer.status).toBe(201);
    });
    const history = await statementsOf(async () => {
      const answer = await tenant("GET", `/v1/sessions/${id}/history`);
      expect(answer.body.messages).toHaveLength(2);
    });
    const underParent = await statementsOf(async () => {
      const answer = await tenant("POST", `/v1/sessions/${id}/messages`, {
        json: { message: text("o3", "Under o1"), parentId: "o1" },
      });
      expect(answer.status).toBe(201);
    });
    // The key, the session's owner and the request's own statement. Before: 4 each (the
    // registry row was read too), and 4 for an append under a parent (which was read first).
    expect({
      append: append.length,
      history: history.length,
      underParent: underParent.length,
    }).toEqual({ append: 3, history: 3, underParent: 3 });
    // Another tenant's session and a missing one answer the same 404, and nothing is written.
    for (const [as, session] of [
      [other, id],
      [key, "no-such-session"],
    ] as const) {
      const answer = await tenant("POST", `/v1/sessions/${session}/messages`, {
        json: { message: text("x1", "Hi") },
        key: as,
      });
      expect([answer.status, answer.body.error.code]).toEqual([
        404,
        "SESSION_NOT_FOUND",
      ]);
    }
    const stored = await pool.query(
      "SELECT count(*)::int AS n FROM assistant_messages WHERE id = 'x1'",
    );
    expect(stored.rows[0].n).toBe(0);
  }, 60_000);
});

// --- Internal helpers ---

/** Records the text of every statement `connection` sends. */
function countStatements(connection: pg.PoolClient, sent: string[]): void {
  const query = connection.query.bind(connection) as (
    ...args: unknown[]
  ) => unknown;
  (connection as { query: unknown }).query = (...args: unknown[]) => {
    const [first] = args;
    const sql =
      typeof first === "string"
        ? first
        : String((first as { text?: unknown }).text);
    sent.push(sql.replace(/\s+/g, " ").trim());
    return query(...args);
  };
}

/** Lets timers (the change announcement) and in-flight statements finish. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 50));
}
