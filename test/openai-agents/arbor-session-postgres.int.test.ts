// arbor-memory/openai-agents on PostgreSQL, on a throwaway database: the first manager over a pg
// Pool, a second one (another process) over postgres.js. Without ARBOR_TEST_PG_URL this skips
// with the reason; under CI=true it fails instead.
import { afterAll, beforeAll } from "vitest";
import { postgresBackend } from "../../src/postgres/index.js";
import { SessionManager } from "../../src/session/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { runArborSessionCases } from "./arbor-session.cases.js";

describePostgres("arbor-memory/openai-agents on PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  runArborSessionCases({
    name: "PostgreSQL (pg Pool, then postgres.js)",
    async create() {
      await database.truncate();
      let opened = 0;
      return {
        manager: () =>
          SessionManager.create(
            postgresBackend(
              opened++ === 0 ? database.pool : database.postgresJs(),
            ),
          ),
        close: async () => undefined,
      };
    },
  });

  runArborSessionCases({
    name: "PostgreSQL (postgres.js only)",
    async create() {
      await database.truncate();
      return {
        manager: () =>
          SessionManager.create(postgresBackend(database.postgresJs())),
        close: async () => undefined,
      };
    },
  });
});
