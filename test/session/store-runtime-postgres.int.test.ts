// The in-process state two objects over one PostgreSQL pool share (store-runtime-spec.ts).
import { afterAll, beforeAll, beforeEach } from "vitest";
import { postgresBackend } from "../../src/backends/postgres/postgres-backend.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { storeRuntimeSpec } from "./store-runtime-spec.js";

describePostgres("one store, two objects: postgres", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  beforeEach(() => database.truncate());
  afterAll(() => database?.drop());

  storeRuntimeSpec(async () => ({
    backend: () => postgresBackend(database.pool),
  }));
});
