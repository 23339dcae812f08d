// The route helper's cases on PostgreSQL, on a throwaway database: the generating handler over a
// pg Pool, the "other process" over a postgres.js client of the same database. Without
// ARBOR_TEST_PG_URL this skips with the reason; under CI=true it fails instead.
import { postgresBackend } from "../../src/postgres/index.js";
import { afterAll, beforeAll } from "vitest";
import { SessionManager } from "../../src/session/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { runChatHandlerCases } from "./chat-handler.cases.js";

describePostgres("arbor-memory/ai-sdk on PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  runChatHandlerCases({
    name: "PostgreSQL (pg Pool and postgres.js)",
    async create() {
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
});
