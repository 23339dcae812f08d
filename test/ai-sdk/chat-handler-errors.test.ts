// The chat routes answer Arbor's error codes with the HTTP API's statuses (one table,
// `STATUS_BY_CODE`), storage faults included: a refused PostgreSQL connection is 503
// STORAGE_UNAVAILABLE with Retry-After, a closed SQLite handle 500 STORAGE_ERROR without the
// driver's words. Real drivers, real failures: nothing here fakes a store.
import { createServer } from "node:net";
import pg from "pg";
import postgres from "postgres";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createChatHandler } from "../../src/ai-sdk/index.js";
import { errorResponse } from "../../src/ai-sdk/http.js";
import { postgresBackend } from "../../src/postgres/index.js";
import type { PostgresClient } from "../../src/backends/postgres/postgres-client.js";
import { STATUS_BY_CODE } from "../../src/server/index.js";
import {
  ARBOR_ERROR_CODES,
  ArborError,
  SessionManager,
} from "../../src/session/index.js";
import { sqliteBackend } from "../../src/sqlite/index.js";

const OWNER = { ownerId: "user-1" };

function handlerOver(manager: SessionManager) {
  return createChatHandler({
    manager,
    respond: () => {
      throw new Error("[test] no model call expected");
    },
  });
}

/** A local port nothing listens on: bound, then closed, so a connect is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string")
    throw new Error("[test] no port");
  return address.port;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("chat route errors", () => {
  it("answers every Arbor code with the HTTP API's status", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    for (const code of ARBOR_ERROR_CODES) {
      const error = new ArborError(code, `[test] ${code}`);
      if (code === "MISSING_DEPENDENCY") {
        // The deployment's fault: thrown where the route is called, with its install command.
        expect(() => errorResponse(error)).toThrow(error);
        continue;
      }
      const answer = errorResponse(error);
      expect(answer.status, code).toBe(STATUS_BY_CODE[code]);
      const body = (await answer.json()) as { error: { code: string } };
      expect(body.error.code, code).toBe(
        code === "SESSION_FORBIDDEN" ? "SESSION_NOT_FOUND" : code,
      );
    }
  });

  const drivers: Array<{
    name: string;
    connect(url: string): { client: PostgresClient; close(): Promise<unknown> };
  }> = [
    {
      name: "pg",
      connect(url) {
        const pool = new pg.Pool({ connectionString: url, max: 1 });
        pool.on("error", () => undefined);
        return { client: pool, close: () => pool.end() };
      },
    },
    {
      name: "postgres.js",
      connect(url) {
        const sql = postgres(url, { max: 1, onnotice: () => undefined });
        return { client: sql, close: () => sql.end({ timeout: 1 }) };
      },
    },
  ];
  for (const driver of drivers) {
    it(`answers a PostgreSQL outage 503 STORAGE_UNAVAILABLE with Retry-After (${driver.name})`, async () => {
      const warned: unknown[] = [];
      vi.spyOn(console, "warn").mockImplementation((line) => warned.push(line));
      const connection = driver.connect(
        `postgres://postgres@127.0.0.1:${await closedPort()}/postgres`,
      );
      try {
        const chat = handlerOver(
          SessionManager.create(postgresBackend(connection.client)),
        );
        const answer = await chat.messages("chat-1", OWNER);
        expect(answer.status).toBe(503);
        expect(answer.headers.get("retry-after")).toBe("1");
        expect(await answer.json()).toEqual({
          error: {
            code: "STORAGE_UNAVAILABLE",
            message:
              "The storage is unavailable; retry after the Retry-After delay",
          },
        });
        expect(warned).toHaveLength(1);
      } finally {
        await connection.close();
      }
    });
  }

  it("answers a failed SQLite store 500 STORAGE_ERROR, its details in the log only", async () => {
    const logged: unknown[][] = [];
    vi.spyOn(console, "error").mockImplementation((...args) =>
      logged.push(args),
    );
    const backend = sqliteBackend(":memory:");
    const chat = handlerOver(SessionManager.create(backend));
    const chatId = await chat.createChat(OWNER);
    backend.sqlite.close();
    const answer = await chat.messages(chatId, OWNER);
    expect(answer.status).toBe(500);
    const body = (await answer.json()) as {
      error: { code: string; message: string };
    };
    expect(body).toEqual({
      error: {
        code: "STORAGE_ERROR",
        message: "The storage failed; the server log has the details",
      },
    });
    expect(logged).toHaveLength(1);
    const [, error] = logged[0]!;
    expect(error).toBeInstanceOf(ArborError);
    expect((error as ArborError).code).toBe("STORAGE_ERROR");
    expect((error as ArborError).cause).toBeDefined();
  });
});
