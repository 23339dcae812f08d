// What PostgreSQL's own failures become at the backend's edge, over `pg` and postgres.js: the
// executor gives each statement's error Arbor's code with the driver's error as `cause`
// (postgres-errors.ts). Real faults on a real server: a terminated backend, a deadlock, a
// serialization failure, a statement PostgreSQL refuses; and what a transaction's own work
// throws passes unchanged.
import pg from "pg";
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { PostgresClient } from "../../src/backends/postgres/postgres-client.js";
import { postgresExecutor } from "../../src/backends/postgres/postgres-executor.js";
import { isArborError } from "../../src/session/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "./postgres-database.js";

interface Driver {
  name: string;
  connect(url: string): { client: PostgresClient; close(): Promise<unknown> };
}

const DRIVERS: Driver[] = [
  {
    name: "pg Pool",
    connect(url) {
      const pool = new pg.Pool({ connectionString: url, max: 4 });
      // A terminated backend is reported on its client as well as to the statement.
      pool.on("error", () => undefined);
      return { client: pool, close: () => pool.end() };
    },
  },
  {
    name: "postgres.js",
    connect(url) {
      const sql = postgres(url, { max: 4, onnotice: () => undefined });
      return {
        client: sql,
        close: () => sql.end({ timeout: 0 }),
      };
    },
  },
];

async function rejection(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("[test] expected a rejection");
}

/** The Arbor code and the driver's SQLSTATE (or code) behind it. */
function codes(error: unknown): { code: unknown; cause: unknown } {
  expect(isArborError(error), String(error)).toBe(true);
  const { code, cause } = error as { code: unknown; cause: unknown };
  return { code, cause: (cause as { code?: unknown } | undefined)?.code };
}

/** A promise and the function that settles it, for two transactions to meet. */
function signal(): { reached: Promise<void>; reach: () => void } {
  let reach!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return { reached, reach };
}

const RAISE = (state: string) =>
  `DO $$ BEGIN RAISE EXCEPTION 'raised by the test' USING ERRCODE = '${state}'; END $$`;

for (const driver of DRIVERS) {
  describePostgres(
    `PostgreSQL errors at the backend's edge: ${driver.name}`,
    () => {
      let database: TestDatabase | undefined;
      let connection: ReturnType<Driver["connect"]> | undefined;
      const executor = () => postgresExecutor(connection!.client);

      beforeAll(async () => {
        database = await createTestDatabase({ schema: false });
        connection = driver.connect(database.url);
      }, 60_000);
      afterAll(async () => {
        await connection?.close();
        await database?.drop();
      }, 60_000);

      it("a terminated backend is STORAGE_UNAVAILABLE (57P01)", async () => {
        const error = await rejection(() =>
          executor().query("SELECT pg_terminate_backend(pg_backend_pid())"),
        );
        expect(codes(error).code).toBe("STORAGE_UNAVAILABLE");
        // The executor still serves: the pool replaces the connection.
        expect(await executor().query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
      });

      it("a serialization failure is WRITE_CONFLICT, in a statement and in a transaction", async () => {
        expect(
          codes(await rejection(() => executor().query(RAISE("40001")))),
        ).toEqual({ code: "WRITE_CONFLICT", cause: "40001" });
        expect(
          codes(
            await rejection(() =>
              executor().transaction((tx) => tx.query(RAISE("40001"))),
            ),
          ),
        ).toEqual({ code: "WRITE_CONFLICT", cause: "40001" });
      });

      it("a deadlock between two transactions is WRITE_CONFLICT for the one PostgreSQL rolls back", async () => {
        const first = signal();
        const second = signal();
        const crossing = (
          mine: number,
          theirs: number,
          held: { reach: () => void },
          other: { reached: Promise<void> },
        ) =>
          executor().transaction(async (tx) => {
            await tx.query("SELECT pg_advisory_xact_lock(?)", [mine]);
            held.reach();
            await other.reached;
            await tx.query("SELECT pg_advisory_xact_lock(?)", [theirs]);
          });
        const outcomes = await Promise.allSettled([
          crossing(4401, 4402, first, second),
          crossing(4402, 4401, second, first),
        ]);
        const failed = outcomes.filter(
          (outcome) => outcome.status === "rejected",
        );
        expect(failed).toHaveLength(1);
        expect(codes((failed[0] as PromiseRejectedResult).reason)).toEqual({
          code: "WRITE_CONFLICT",
          cause: "40P01",
        });
      });

      it("a statement PostgreSQL refuses is STORAGE_ERROR, the driver's error as cause", async () => {
        expect(
          codes(await rejection(() => executor().query("SELECT 1 / 0"))),
        ).toEqual({ code: "STORAGE_ERROR", cause: "22012" });
      });

      it("what a transaction's own work throws passes unchanged", async () => {
        const own = new TypeError("not the database's");
        const error = await rejection(() =>
          executor().transaction(async (tx) => {
            await tx.query("SELECT 1");
            throw own;
          }),
        );
        expect(error).toBe(own);
      });
    },
  );
}
