// The HTTP API suite on PostgreSQL (ARBOR_TEST_PG_URL), over `pg` and over postgres.js, each on
// its own throwaway database emptied before every case (the key table included).
import { postgresBackend } from "../../src/postgres/index.js";
import { PostgresApiKeyStore } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import type { PostgresClient } from "../../src/backends/postgres/postgres-client.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { runApiSuite } from "./support/api-suite.js";

function runOnPostgres(
  name: string,
  connect: (database: TestDatabase) => PostgresClient,
): void {
  describePostgres(name, () => {
    let database: TestDatabase | undefined;
    let client: PostgresClient | undefined;
    runApiSuite({
      name,
      beforeAll: async () => {
        database = await createTestDatabase();
        client = connect(database);
      },
      afterAll: () => database?.drop(),
      create: async () => {
        await database!.truncate();
        await database!.pool.query("DROP TABLE IF EXISTS arbor_api_keys");
        return {
          manager: () => SessionManager.create(postgresBackend(client!)),
          keys: () => new PostgresApiKeyStore(client!),
        };
      },
    });
  });
}

runOnPostgres("PostgreSQL over a pg Pool", (database) => database.pool);
runOnPostgres("PostgreSQL over postgres.js", (database) =>
  database.postgresJs(),
);
