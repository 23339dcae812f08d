// LangGraph's official checkpointer suite, unchanged, on ArborCheckpointSaver over PostgreSQL:
// through a `pg` Pool and through a postgres.js `sql` instance, each on a throwaway database
// emptied before every checkpointer the suite creates.
import { ArborCheckpointSaver } from "../../src/langgraph/index.js";
import { postgresBackend } from "../../src/postgres/index.js";
import type { PostgresClient } from "../../src/session/contracts/postgres-client.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { validateSaver } from "./support/validation-suite.js";

validateOnPostgres("a pg Pool", (database) => database.pool);
validateOnPostgres("a postgres.js sql instance", (database) =>
  database.postgresJs(),
);

function validateOnPostgres(
  clientName: string,
  connect: (database: TestDatabase) => PostgresClient,
): void {
  const name = `ArborCheckpointSaver over postgresBackend() on ${clientName}`;
  describePostgres(name, () => {
    let database: TestDatabase | undefined;
    let client: PostgresClient;
    validateSaver({
      checkpointerName: name,
      beforeAllTimeout: 60_000,
      beforeAll: async () => {
        database = await createTestDatabase();
        client = connect(database);
      },
      afterAll: () => database?.drop(),
      createCheckpointer: async () => {
        await database!.truncate();
        return new ArborCheckpointSaver(postgresBackend(client));
      },
    });
  });
}
