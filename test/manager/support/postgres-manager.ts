// Runs the SessionManager suite on a throwaway PostgreSQL database (ARBOR_TEST_PG_URL), emptied
// before every case and dropped afterwards, over whatever client `connect` makes of it.
import { postgresBackend } from "../../../src/postgres/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  PostgresSessionProvider,
  Session,
  SessionManager,
} from "../../../src/session/index.js";
import type { PostgresClient } from "../../../src/backends/postgres/postgres-client.js";
import { runManagerConformance } from "../../../src/testing/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../../providers/postgres-database.js";

export function runPostgresManagerConformance(
  name: string,
  connect: (database: TestDatabase) => PostgresClient,
): void {
  describePostgres(name, () => {
    let database: TestDatabase | undefined;
    let client: PostgresClient | undefined;
    runManagerConformance(
      {
        name,
        beforeAll: async () => {
          database = await createTestDatabase();
          client = connect(database);
        },
        afterAll: () => database?.drop(),
        create: async () => {
          await database!.truncate();
          return {
            manager: (options) =>
              SessionManager.create(postgresBackend(client!), options),
            dump: () => dumpAllTables(database!),
            sessionWithoutManager: (sessionId) =>
              Session.create(new PostgresSessionProvider(client!)).forSession(
                sessionId,
              ),
          };
        },
      },
      { describe, it, expect, beforeAll, afterAll },
    );
  });
}

/** Every row of every table of the database's public schema, as JSON. */
export async function dumpAllTables(
  database: TestDatabase,
): Promise<unknown[]> {
  const tables = await database.pool.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const rows: unknown[] = [];
  for (const { name } of tables.rows) {
    const result = await database.pool.query<{ row: string }>(
      `SELECT row_to_json(t)::text AS row FROM "${name.replaceAll('"', '""')}" AS t`,
    );
    for (const { row } of result.rows) rows.push({ table: name, row });
  }
  return rows;
}
