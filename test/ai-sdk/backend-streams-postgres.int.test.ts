// Backend streams on PostgreSQL, on a throwaway database. Without ARBOR_TEST_PG_URL this skips
// with the reason; under CI=true it fails instead.
import { afterAll, beforeAll } from "vitest";
import { postgresBackend } from "../../src/backends/postgres/postgres-backend.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { runBackendStreamsCases } from "./backend-streams.cases.js";

describePostgres("Backend streams on PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  runBackendStreamsCases("PostgreSQL", async () => {
    await database.pool.query(
      "DROP TABLE IF EXISTS arbor_chat_streams, arbor_chat_stream_chunks",
    );
    // A new client object each time, so the tables are created again (on first use).
    return postgresBackend(await database.client()).streams!;
  });
});
