// ArborStore on PostgreSQL (support/store-cases.ts), through a `pg` Pool and a postgres.js `sql`
// instance, each on a throwaway database emptied before every case.
import { afterAll, beforeAll } from "vitest";
import { postgresBackend } from "../../src/postgres/index.js";
import type { PostgresClient } from "../../src/session/contracts/postgres-client.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { runStoreCases } from "./support/store-cases.js";

for (const [clientName, connect] of [
  ["a pg Pool", (database: TestDatabase) => database.pool],
  [
    "a postgres.js sql instance",
    (database: TestDatabase) => database.postgresJs(),
  ],
] as const) {
  describePostgres(`ArborStore over postgresBackend() on ${clientName}`, () => {
    let database: TestDatabase | undefined;
    let client: PostgresClient;
    beforeAll(async () => {
      database = await createTestDatabase();
      client = connect(database);
    });
    afterAll(() => database?.drop());
    runStoreCases(`postgresBackend() on ${clientName}`, async () => {
      await database!.truncate();
      return postgresBackend(client);
    });
  });
}
