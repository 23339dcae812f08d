// Session metadata limits and all-or-nothing creates on PostgreSQL, through a `pg` Pool and a
// postgres.js `sql` instance, each on a throwaway database. The failure in the middle is a real
// one: a trigger raises when the create reaches one key.
import { postgresBackend } from "../../src/postgres/index.js";
import { afterAll, beforeAll } from "vitest";
import { SessionManager } from "../../src/session/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { metadataCases } from "./support/metadata-cases.js";

for (const driver of ["pg", "postgres"] as const) {
  describePostgres(`metadata writes on PostgreSQL (${driver})`, () => {
    let database: TestDatabase;
    let manager: SessionManager;
    beforeAll(async () => {
      database = await createTestDatabase({ poolSize: 4 });
      manager = SessionManager.create(
        postgresBackend(
          driver === "pg" ? database.pool : database.postgresJs(),
        ),
      );
    }, 60_000);
    afterAll(async () => {
      await database?.drop();
    }, 60_000);

    metadataCases({
      manager: () => manager,
      failOnKey: async (key) => {
        await database.pool.query(`
          CREATE OR REPLACE FUNCTION arbor_test_fail() RETURNS trigger AS $$
          BEGIN
            IF NEW.key = 'meta:${key}' THEN RAISE EXCEPTION 'refused by the test'; END IF;
            RETURN NEW;
          END $$ LANGUAGE plpgsql`);
        await database.pool.query(`
          CREATE OR REPLACE TRIGGER arbor_test_fail BEFORE INSERT ON assistant_config
          FOR EACH ROW EXECUTE FUNCTION arbor_test_fail()`);
      },
    });
  });
}
