// A transaction over a pg.Pool whose backend is terminated mid-way (57P01, as every connection gets
// when PostgreSQL restarts). The checked-out client emits `error` itself, and the pool listens only
// on idle ones: unheard, that event is an unhandled error that fails the whole test run. Here the
// transaction rejects with STORAGE_UNAVAILABLE (the server's error as its cause), the pool discards
// the connection, and the next transaction runs on a fresh one.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { postgresExecutor } from "../../src/backends/postgres/postgres-executor.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "./postgres-database.js";

describePostgres("a pg.Pool transaction whose backend is terminated", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({
      connectionString: database.url,
      max: 2,
      application_name: "arbor-terminated-transaction",
    });
    // Idle connections' errors are the application's pool listener's, as in any application.
    pool.on("error", () => undefined);
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it("rejects with STORAGE_UNAVAILABLE (57P01), discards the connection and runs the next transaction", async () => {
    const executor = postgresExecutor(pool);
    const running = executor.transaction(async (tx) => {
      await tx.query("SELECT pg_sleep(30)");
      return "finished";
    });
    const outcome = running.then(
      () => null,
      (error: { code?: string; cause?: { code?: string } }) => error,
    );
    // Wait until the transaction's statement is running, then end its backend.
    for (let tries = 0; tries < 100; tries++) {
      const { rows } = await database.pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity
          WHERE application_name = 'arbor-terminated-transaction' AND query LIKE '%pg_sleep%'`,
      );
      if (Number(rows[0]!.n) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await database.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name = 'arbor-terminated-transaction' AND query LIKE '%pg_sleep%'`,
    );
    const error = await outcome;
    expect([error?.code, error?.cause?.code]).toEqual([
      "STORAGE_UNAVAILABLE",
      "57P01",
    ]);
    // Let the terminated connection's remaining events arrive before the next checkout.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(
      executor.transaction(async (tx) => {
        const rows = await tx.query<{ one: number }>("SELECT 1 AS one");
        return rows[0]!.one;
      }),
    ).resolves.toBe(1);
  });
});
