// The model-based property test (test/trust/model/) on PostgreSQL, through `pg` (a Pool) and
// through postgres.js, each on its own throwaway database. Every sequence is a new session, and
// every "restart" a new manager over the same client.
import { postgresBackend } from "../../src/postgres/index.js";
import { afterAll, beforeAll, it } from "vitest";
import { SessionManager } from "../../src/session/index.js";
import type { PostgresClient } from "../../src/backends/postgres/postgres-client.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { checkAgainstModel } from "./model/model-run.js";

const RUNS = Number(process.env.ARBOR_MODEL_RUNS ?? 200);
// About 50 ms a sequence on the slowest backend, with room for a busy machine.
const TIMEOUT = Math.max(600_000, RUNS * 250);

const clients: Array<[string, (database: TestDatabase) => PostgresClient]> = [
  ["pg Pool", (database) => database.pool],
  ["postgres.js", (database) => database.postgresJs()],
];

for (const [driver, connect] of clients) {
  describePostgres(
    `PostgreSQL through ${driver} agrees with the plain tree model`,
    () => {
      let database: TestDatabase;
      beforeAll(async () => {
        database = await createTestDatabase();
      });
      afterAll(() => database?.drop());

      it(
        `${RUNS} random sequences through ${driver}`,
        async () => {
          const client = connect(database);
          await checkAgainstModel(
            { manager: () => SessionManager.create(postgresBackend(client)) },
            { runs: RUNS },
          );
        },
        TIMEOUT,
      );
    },
  );
}
