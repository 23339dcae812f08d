import { describe, expect, it } from "vitest";
import postgres from "postgres";
import type { PostgresClient } from "../../session/contracts/postgres-client.js";
import { isPostgresClient } from "./postgres-client.js";
import { numberPlaceholders, postgresExecutor } from "./postgres-executor.js";

describe("numberPlaceholders", () => {
  it("numbers ? in order, leaving literals, quoted identifiers and comments alone", () => {
    expect(
      numberPlaceholders(
        `SELECT '?', "a?b", ? -- what?\n, 'it''s ?', ?::text[] FROM t WHERE x = ?`,
      ),
    ).toBe(
      `SELECT '?', "a?b", $1 -- what?\n, 'it''s ?', $2::text[] FROM t WHERE x = $3`,
    );
  });
});

describe("postgresExecutor", () => {
  const rows = async () => ({ rows: [] });
  it("tells a pool (connect + totalCount), a single client and an execute connection apart", () => {
    const pool = { query: rows, connect: async () => null, totalCount: 0 };
    const client = { query: rows, connect: async () => undefined };
    const execute = { execute: rows };
    expect(postgresExecutor(pool as PostgresClient).kind).toBe("pool");
    expect(postgresExecutor(client as PostgresClient).kind).toBe("client");
    expect(postgresExecutor(execute).kind).toBe("execute");
    // One executor per client object, so providers share a connection's mutex.
    expect(postgresExecutor(client as PostgresClient)).toBe(
      postgresExecutor(client as PostgresClient),
    );
  });

  it("takes a postgres.js sql (a function with unsafe and begin) as its own kind", async () => {
    // postgres.js connects lazily: creating the instance opens no connection.
    const sql = postgres("postgres://127.0.0.1:1/none");
    try {
      expect(isPostgresClient(sql)).toBe(true);
      expect(postgresExecutor(sql).kind).toBe("postgres-js");
      expect(postgresExecutor(sql).supportsTransactions).toBe(true);
      expect(isPostgresClient(() => undefined)).toBe(false);
    } finally {
      await sql.end();
    }
  });

  it("rejects anything else with INVALID_TARGET", () => {
    // @ts-expect-error -- not a client, on purpose
    expect(() => postgresExecutor({})).toThrow(/pg Client or Pool/);
  });

  it("never interleaves a single client's transaction with other statements", async () => {
    const log: string[] = [];
    const client = {
      query: async (text: string) => {
        log.push(`start ${text}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        log.push(`end ${text}`);
        return { rows: [] };
      },
    };
    const executor = postgresExecutor(client);
    await Promise.all([
      executor.transaction(async (tx) => {
        await tx.query("A1");
        await tx.query("A2");
      }),
      executor.query("B"),
    ]);
    expect(log).toEqual([
      "start BEGIN",
      "end BEGIN",
      "start A1",
      "end A1",
      "start A2",
      "end A2",
      "start COMMIT",
      "end COMMIT",
      "start B",
      "end B",
    ]);
  });
});
