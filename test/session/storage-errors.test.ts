// Errors are wrapped at the contract: each backend gives its driver's failures Arbor's codes, with
// the driver's error as `cause`, through the Session API itself; the HTTP server and MCP read the
// code only, so they answer alike for one fault, and a custom provider's own error is never taken
// for a storage outage because of its words or its `code`.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresSessionProvider } from "../../src/backends/postgres/index.js";
import type { PostgresClient } from "../../src/backends/postgres/postgres-client.js";
import { memoryBackend } from "../../src/backends/memory/memory-backend.js";
import { postgresBackend } from "../../src/backends/postgres/postgres-backend.js";
import { mcpEndpoint } from "../../src/mcp/index.js";
import { createApp } from "../../src/server/index.js";
import {
  isArborError,
  Session,
  SessionManager,
  type SessionMessage,
} from "../../src/session/index.js";
import type { Backend } from "../../src/session/contracts/backend.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { connectHttp } from "../mcp/support/http-client.js";
import { failure } from "../mcp/support/suite.js";
import { client } from "../server/support/client.js";

const message = (id: string): SessionMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text: `message ${id}` }],
});

/** A TCP port nothing listens on: one the system just handed out and that was closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The rejection of `work`, which must reject. */
async function rejection(work: () => unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("[test] expected a rejection");
}

/** Code, and the cause's code, of an Arbor error. */
function codes(error: unknown): { code: unknown; cause: unknown } {
  expect(isArborError(error), String(error)).toBe(true);
  const { code, cause } = error as { code: unknown; cause: unknown };
  return { code, cause: (cause as { code?: unknown } | undefined)?.code };
}

interface Driver {
  name: string;
  connect(url: string): { client: PostgresClient; close(): Promise<unknown> };
}

const DRIVERS: Driver[] = [
  {
    name: "pg Pool",
    connect(url) {
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      pool.on("error", () => undefined);
      return { client: pool, close: () => pool.end() };
    },
  },
  {
    name: "postgres.js",
    connect(url) {
      const sql = postgres(url, { max: 2, onnotice: () => undefined });
      return {
        client: sql,
        close: () => sql.end({ timeout: 0 }),
      };
    },
  },
];

const closing: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  await Promise.allSettled(closing.map((close) => close()));
});

describe.each(DRIVERS)("PostgreSQL refused, over $name", (driver) => {
  const connectClosed = async () => {
    const url = `postgres://postgres@127.0.0.1:${await closedPort()}/postgres`;
    const connection = driver.connect(url);
    closing.push(connection.close);
    return connection.client;
  };

  it("is STORAGE_UNAVAILABLE from the Session API, the driver's error as cause", async () => {
    const session = Session.create(
      new PostgresSessionProvider(await connectClosed(), "refused"),
    );
    for (const work of [
      () => session.appendMessage(message("m1")),
      () => session.getHistory(),
    ]) {
      expect(codes(await rejection(work))).toEqual({
        code: "STORAGE_UNAVAILABLE",
        cause: "ECONNREFUSED",
      });
    }
  });

  it("is STORAGE_UNAVAILABLE from the manager", async () => {
    const manager = SessionManager.create(
      postgresBackend(await connectClosed()),
    );
    expect(codes(await rejection(() => manager.list()))).toEqual({
      code: "STORAGE_UNAVAILABLE",
      cause: "ECONNREFUSED",
    });
  });

  it("answers alike over HTTP (503) and MCP", async () => {
    const manager = SessionManager.create(
      postgresBackend(await connectClosed()),
    );
    const app = createApp({
      manager,
      mcp: mcpEndpoint(),
      logError: () => undefined,
    });
    const answer = await client(app)("GET", "/v1/sessions");
    expect([answer.status, answer.body.error.code]).toEqual([
      503,
      "STORAGE_UNAVAILABLE",
    ]);
    const mcp = await connectHttp("http://localhost/mcp", {
      fetch: (input, init) =>
        Promise.resolve(app.fetch(new Request(input, init))),
    });
    closing.push(() => mcp.close());
    expect((await failure(mcp, "list_sessions", {})).code).toBe(
      "STORAGE_UNAVAILABLE",
    );
  });
});

describe("SQLite busy", () => {
  const folder = mkdtempSync(join(tmpdir(), "arbor-busy-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("is STORAGE_UNAVAILABLE from the Session API, SQLITE_BUSY as cause, and nothing is written", async () => {
    const file = join(folder, "busy.db");
    const handle = openSqlite(file);
    closing.push(async () => handle.close());
    const session = Session.create(handle).forSession("busy");
    await session.appendMessage(message("m1"));
    // Another process's writer holds the write lock longer than this connection waits for it.
    handle.database.pragma("busy_timeout = 20");
    const other = new Database(file);
    other.pragma("busy_timeout = 0");
    other.prepare("BEGIN IMMEDIATE").run();
    try {
      expect(
        codes(await rejection(() => session.appendMessage(message("m2")))),
      ).toEqual({ code: "STORAGE_UNAVAILABLE", cause: "SQLITE_BUSY" });
    } finally {
      other.prepare("ROLLBACK").run();
      other.close();
    }
    expect((await session.getHistory()).map((entry) => entry.id)).toEqual([
      "m1",
    ]);
  });

  it("a closed handle is STORAGE_ERROR, the driver's error as cause", async () => {
    const handle = openSqlite(join(folder, "closed.db"));
    const session = Session.create(handle).forSession("closed");
    await session.appendMessage(message("m1"));
    handle.close();
    const error = await rejection(() => session.getHistory());
    expect(codes(error).code).toBe("STORAGE_ERROR");
    expect((error as { cause: unknown }).cause).toBeInstanceOf(TypeError);
  });

  it("a closed handle answers STORAGE_ERROR alike over HTTP (500, details logged only) and MCP", async () => {
    const handle = openSqlite(join(folder, "closed-served.db"));
    const manager = SessionManager.create(handle);
    await manager.create("before");
    const logged: unknown[] = [];
    const app = createApp({
      manager,
      mcp: mcpEndpoint(),
      logError: (_message, error) => logged.push(error),
    });
    const mcp = await connectHttp("http://localhost/mcp", {
      fetch: (input, init) =>
        Promise.resolve(app.fetch(new Request(input, init))),
    });
    closing.push(() => mcp.close());
    handle.close();
    const answer = await client(app)("GET", "/v1/sessions");
    expect([answer.status, answer.body.error]).toEqual([
      500,
      {
        code: "STORAGE_ERROR",
        message: "The storage failed; the server log has the details",
      },
    ]);
    expect(logged.map((error) => codes(error).code)).toEqual(["STORAGE_ERROR"]);
    expect((await failure(mcp, "list_sessions", {})).code).toBe(
      "STORAGE_ERROR",
    );
  });
});

describe("a custom provider's own error", () => {
  /**
   * A backend whose registry fails with an error that reads like a driver's (a `code`, and
   * "database" and "connection" in its words) but carries no Arbor code.
   */
  function brokenBackend(fault: Error): Backend {
    const base = memoryBackend();
    const registry = new Proxy(base.registry, {
      get(target, key) {
        if (key === "list" || key === "listDetailed")
          return () => Promise.reject(fault);
        const value: unknown = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    return {
      name: "custom",
      identity: base.identity,
      registry,
      session: (id) => base.session(id),
    };
  }

  it("is INTERNAL over HTTP and MCP, not a storage outage, whatever it says", async () => {
    const fault = Object.assign(
      new Error("database connection lost: sql said no"),
      { code: "ECONNREFUSED" },
    );
    const logged: unknown[] = [];
    const app = createApp({
      manager: SessionManager.create(brokenBackend(fault)),
      mcp: mcpEndpoint(),
      logError: (_message, error) => logged.push(error),
    });
    const answer = await client(app)("GET", "/v1/sessions");
    expect([answer.status, answer.body.error.code]).toEqual([500, "INTERNAL"]);
    // Logged once, with the error itself: a fault of the server, not an outage's one line.
    expect(logged).toEqual([fault]);
    const mcp = await connectHttp("http://localhost/mcp", {
      fetch: (input, init) =>
        Promise.resolve(app.fetch(new Request(input, init))),
    });
    closing.push(() => mcp.close());
    expect((await failure(mcp, "list_sessions", {})).code).toBe("INTERNAL");
  });
});
