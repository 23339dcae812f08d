// Database outages under the HTTP API, over `pg` and over postgres.js, caused by a TCP proxy in
// front of PostgreSQL that the test controls (never by restarting the shared server): requests
// answer 503 STORAGE_UNAVAILABLE with Retry-After, nothing crashes, the outage logs one line and
// no stack trace, /ready reports it while /health stays alive, the service recovers by itself,
// and every acknowledged write is stored exactly once, retries included. A stalled network
// meets the load limits: 503 OVERLOADED at once over the limit, 503 REQUEST_TIMEOUT after it.
import { postgresBackend } from "../../src/postgres/index.js";
import pg from "pg";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type CreateAppOptions } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import type { PostgresClient } from "../../src/backends/postgres/postgres-client.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { client, text, type Answer, type Call } from "./support/client.js";
import { TcpProxy } from "./support/tcp-proxy.js";

interface Connection {
  client: PostgresClient;
  close(): Promise<unknown>;
}

/** Polls until `check` holds (bounded), for the recovery after an outage. */
async function eventually(check: () => Promise<boolean>, what: string) {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`[test] never happened: ${what}`);
}

function outagesOn(
  name: string,
  connect: (
    url: string,
    options: { max: number; timeoutMs: number },
  ) => Connection,
): void {
  describePostgres(`storage outages: ${name}`, () => {
    let database: TestDatabase | undefined;
    let proxy: TcpProxy | undefined;
    const connections: Connection[] = [];
    const logged: Array<{ message: string; error: unknown }> = [];

    const appOver = (
      options: { max?: number; timeoutMs?: number } = {},
      app: Partial<CreateAppOptions> = {},
    ): Call => {
      const connection = connect(proxy!.url(database!.url), {
        max: options.max ?? 4,
        timeoutMs: options.timeoutMs ?? 1_000,
      });
      connections.push(connection);
      return client(
        createApp({
          manager: SessionManager.create(postgresBackend(connection.client)),
          logError: (message, error) => logged.push({ message, error }),
          ...app,
        }),
      );
    };

    /** The ids stored in the session, read past the proxy. */
    const storedIds = async (sessionId: string) =>
      (
        await database!.pool.query(
          "SELECT id FROM assistant_messages WHERE session_id = $1",
          [sessionId],
        )
      ).rows.map((row: { id: string }) => row.id);

    const expectUnavailable = (answer: Answer, what: string) => {
      expect(
        [
          answer.status,
          answer.body?.error?.code,
          answer.headers.get("retry-after"),
        ],
        what,
      ).toEqual([503, "STORAGE_UNAVAILABLE", "1"]);
    };

    beforeAll(async () => {
      database = await createTestDatabase();
      const target = new URL(database.url);
      proxy = await TcpProxy.start({
        host: target.hostname,
        port: Number(target.port || 5432),
      });
    }, 60_000);
    afterAll(async () => {
      await proxy?.restore();
      await Promise.allSettled(connections.map((c) => c.close()));
      await proxy?.close();
      await database?.drop();
    }, 60_000);

    it("answers 503 with Retry-After during an outage, logs it once, recovers, and loses no acknowledged write", async () => {
      logged.length = 0;
      const call = appOver();
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Outage" } })
      ).body;
      const path = `/v1/sessions/${id}/messages`;
      const acknowledged: string[] = [];
      for (let index = 0; index < 3; index++) {
        const answer = await call("POST", path, {
          json: { message: text(`before-${index}`, "x") },
        });
        expect(answer.status).toBe(201);
        acknowledged.push(`before-${index}`);
      }

      proxy!.cut();
      const failed: string[] = [];
      for (let index = 0; index < 6; index++) {
        const messageId = `during-${index}`;
        const write = await call("POST", path, {
          json: { message: text(messageId, "y") },
        });
        if (write.status === 201) acknowledged.push(messageId);
        else {
          expectUnavailable(write, `POST ${messageId}`);
          failed.push(messageId);
        }
        expectUnavailable(
          await call("GET", "/v1/sessions"),
          "GET /v1/sessions",
        );
      }
      expect(failed.length).toBeGreaterThan(0);
      expectUnavailable(await call("GET", "/ready"), "GET /ready");
      expect((await call("GET", "/health")).status).toBe(200);
      // One line for the whole outage, and no error object (no stack trace) per request.
      expect(logged.map((entry) => entry.message)).toEqual([
        expect.stringContaining("storage unavailable"),
      ]);
      expect(logged.every((entry) => entry.error === undefined)).toBe(true);

      await proxy!.restore();
      await eventually(
        async () => (await call("GET", "/ready")).status === 200,
        "/ready answers 200 again",
      );
      expect(logged.at(-1)?.message).toContain("storage available again");
      // A retry of every failed write with its id is safe: created now, or already there.
      for (const messageId of failed) {
        const retry = await call("POST", path, {
          json: { message: text(messageId, "y") },
        });
        expect([200, 201], `${messageId}: ${retry.text}`).toContain(
          retry.status,
        );
        acknowledged.push(messageId);
      }
      const stored = await storedIds(id);
      expect(stored.sort()).toEqual([...acknowledged].sort());
    });

    it("a cut in the middle of concurrent writes: every 201 is stored, every failure is a typed 503, retries store the rest once", async () => {
      const call = appOver();
      const { id } = (
        await call("POST", "/v1/sessions", { json: { name: "Mid-flight" } })
      ).body;
      const path = `/v1/sessions/${id}/messages`;
      const ids = Array.from({ length: 24 }, (_, index) => `m${index}`);
      const writes = ids.map((messageId) =>
        call("POST", path, {
          json: { message: text(messageId, "z"), parentId: null },
        }),
      );
      setTimeout(() => proxy!.cut(), 15);
      const answers = await Promise.all(writes);
      const acknowledged = ids.filter(
        (_, index) => answers[index]!.status === 201,
      );
      answers.forEach((answer, index) => {
        if (answer.status !== 201) expectUnavailable(answer, ids[index]!);
      });
      await proxy!.restore();
      expect(await storedIds(id)).toEqual(expect.arrayContaining(acknowledged));
      await eventually(
        async () => (await call("GET", "/ready")).status === 200,
        "/ready answers 200 again",
      );
      for (const [index, messageId] of ids.entries()) {
        if (answers[index]!.status === 201) continue;
        // A write cut after its commit answers 200 now: the same body, stored once.
        const retry = await call("POST", path, {
          json: { message: text(messageId, "z"), parentId: null },
        });
        expect([200, 201], `${messageId}: ${retry.text}`).toContain(
          retry.status,
        );
      }
      const stored = await storedIds(id);
      expect(stored.sort()).toEqual([...ids].sort());
    });

    it("a cut at any moment of concurrent writes: every request settles as 201 or STORAGE_UNAVAILABLE, none waits for the request timeout", async () => {
      // postgres.js 3.4 can lose a statement handed to a connection between its socket's error
      // and close (postgres-lost-statements.ts); in a sweep of cut moments that happened about
      // once in twenty cuts, and the request then hung until the request timeout.
      for (let delay = 4; delay <= 34; delay += 3) {
        const call = appOver({}, { requestTimeoutMs: 20_000 });
        const { id } = (
          await call("POST", "/v1/sessions", { json: { name: `Cut ${delay}` } })
        ).body;
        const path = `/v1/sessions/${id}/messages`;
        const ids = Array.from({ length: 24 }, (_, index) => `m${index}`);
        const writes = ids.map((messageId) =>
          call("POST", path, {
            json: { message: text(messageId, "w"), parentId: null },
          }),
        );
        // Restored only after the cut has happened: writes that all finish before `delay` must
        // not leave the proxy cut for the next case (which then saw only 503s).
        const cut = new Promise<void>((resolve) =>
          setTimeout(() => {
            proxy!.cut();
            resolve();
          }, delay),
        );
        const answers = await Promise.all(writes);
        await cut;
        await proxy!.restore();
        answers.forEach((answer, index) => {
          if (answer.status !== 201)
            expectUnavailable(answer, `cut after ${delay} ms: ${ids[index]}`);
        });
        const acknowledged = ids.filter(
          (_, index) => answers[index]!.status === 201,
        );
        expect(await storedIds(id)).toEqual(
          expect.arrayContaining(acknowledged),
        );
        // Closed in the background (postgres.js waits up to a second); afterAll awaits it.
        void connections
          .at(-1)!
          .close()
          .catch(() => undefined);
      }
    }, 90_000);

    it("a stalled network meets the load limits: a bounded queue, then OVERLOADED; REQUEST_TIMEOUT for the running ones", async () => {
      // Each step waits for a state, not a pause: the running requests are known to hold their
      // turns once their statements sit in the stalled proxy, and the limits are wide enough
      // (seconds, not milliseconds) that a loaded machine reaches every step before they pass.
      // The pool waits for a connection longer than the requests run, so a stalled request
      // holds its turn until its request timeout instead of failing as an outage first.
      const call = appOver(
        { timeoutMs: 30_000 },
        {
          maxInFlight: 3,
          maxQueued: 1,
          queueTimeoutMs: 1_000,
          requestTimeoutMs: 2_000,
        },
      );
      await eventually(
        async () => (await call("GET", "/v1/sessions")).status === 200,
        "served before the stall",
      );
      proxy!.stall();
      try {
        const slow = Array.from({ length: 3 }, () =>
          call("GET", "/v1/sessions"),
        );
        await eventually(
          () => Promise.resolve(proxy!.held >= 3),
          "the three requests hold their turns, their statements stalled",
        );
        // One more waits for a turn (none comes within its queue timeout); the next finds the
        // queue full. Which of the two is refused first depends on how long the first waited
        // (an overloaded queue serves the newest first): both are refused, neither runs.
        const queued = call("GET", "/v1/sessions");
        const full = call("GET", "/v1/sessions");
        for (const shed of await Promise.all([queued, full])) {
          expect([shed.status, shed.body.error.code]).toEqual([
            503,
            "OVERLOADED",
          ]);
          expect(
            Number(shed.headers.get("retry-after")),
          ).toBeGreaterThanOrEqual(1);
        }
        for (const answer of await Promise.all(slow))
          expect([answer.status, answer.body.error.code]).toEqual([
            503,
            "REQUEST_TIMEOUT",
          ]);
      } finally {
        await proxy!.restore();
      }
      await eventually(
        async () => (await call("GET", "/v1/sessions")).status === 200,
        "served again once the network is back",
      );
    });
  });
}

outagesOn("pg Pool", (url, { max, timeoutMs }) => {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: timeoutMs,
  });
  // As `arbor serve` does: an idle client losing its connection must not crash the process.
  pool.on("error", () => undefined);
  return { client: pool, close: () => pool.end() };
});
outagesOn("postgres.js", (url, { max, timeoutMs }) => {
  const sql = postgres(url, {
    max,
    connect_timeout: timeoutMs / 1000,
    // postgres.js waits longer after each failed connect (up to 20 s by default): keep the
    // recovery short, as docs/server.md advises for servers.
    backoff: () => 0.05,
    onnotice: () => undefined,
    // postgres.js reads the array types on a new connection outside any query's promise; when
    // the proxy cuts that read, its rejection is unhandled (seen once in CI). Arbor binds no
    // arrays, so the read is not needed here.
    fetch_types: false,
  });
  return { client: sql, close: () => sql.end({ timeout: 1 }) };
});

describePostgres("storage outages: pg pool exhausted", () => {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  }, 60_000);
  afterAll(() => database?.drop(), 60_000);

  it("a request waits for a connection for the pool's timeout at most, then answers 503", async () => {
    const pool = new pg.Pool({
      connectionString: database!.url,
      max: 1,
      connectionTimeoutMillis: 150,
    });
    pool.on("error", () => undefined);
    try {
      const call = client(
        createApp({
          manager: SessionManager.create(postgresBackend(pool)),
          logError: () => undefined,
        }),
      );
      const held = await pool.connect();
      try {
        const answer = await call("GET", "/v1/sessions");
        expect([answer.status, answer.body.error.code]).toEqual([
          503,
          "STORAGE_UNAVAILABLE",
        ]);
      } finally {
        held.release();
      }
      expect((await call("GET", "/v1/sessions")).status).toBe(200);
    } finally {
      await pool.end();
    }
  });
});

describe("storage faults", () => {
  it("are what the backend calls them: the server reads the code only", async () => {
    const { isStorageFault } =
      await import("../../src/server/reliability/storage-faults.js");
    const { postgresError } =
      await import("../../src/backends/postgres/postgres-errors.js");
    const coded = (code: string) => Object.assign(new Error("x"), { code });
    for (const fault of [
      coded("ECONNREFUSED"),
      coded("57P01"),
      coded("08006"),
      coded("53300"),
      coded("CONNECTION_CLOSED"),
      new Error("Connection terminated unexpectedly"),
      new Error("timeout exceeded when trying to connect"),
      new AggregateError([coded("ECONNREFUSED")]),
      new Error("wrapped", { cause: coded("ECONNRESET") }),
    ]) {
      expect(isStorageFault(postgresError(fault)), String(fault)).toBe(true);
      // Unwrapped, a driver's error is not Arbor's to read.
      expect(isStorageFault(fault), String(fault)).toBe(false);
    }
    for (const other of [coded("23505"), coded("42P01"), new Error("boom")])
      expect(isStorageFault(postgresError(other)), String(other)).toBe(false);
    for (const other of [null, "ECONNREFUSED", coded("STORAGE_UNAVAILABLE")])
      expect(isStorageFault(other), String(other)).toBe(false);
  });
});
