// `arbor-memory/sessions` on PostgreSQL: the same cases as in memory and on SQLite, over a pg
// Pool's backend handed to `new Sessions()` (a client itself is refused, naming
// `postgresBackend()`), on a throwaway database. Without ARBOR_TEST_PG_URL this skips with the reason; under CI=true
// it fails instead.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresBackend } from "../../src/postgres/index.js";
import { Sessions } from "../../src/sessions/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { runSessionsSpec, text } from "./sessions-spec.js";

describePostgres("arbor-memory/sessions on PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  runSessionsSpec({
    name: "PostgreSQL",
    create: async () => {
      await database.truncate();
      return postgresBackend(database.pool);
    },
  });

  it("refuses a PostgreSQL client itself with INVALID_TARGET naming postgresBackend(client)", () => {
    let error: unknown;
    try {
      new Sessions(database.pool as never);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toMatchObject({ code: "INVALID_TARGET" });
    expect((error as Error).message).toContain("postgresBackend(client)");
    expect((error as Error).message).toContain("arbor-memory/postgres");
  });

  describe("two Sessions over one database", () => {
    it("a write through one is seen by the other's subscribe(), with the stored message", async () => {
      await database.truncate();
      const writer = new Sessions(postgresBackend(database.pool));
      const reader = new Sessions(postgresBackend(await database.client()));
      const seen: string[] = [];
      const stop = reader.subscribe((event) => {
        if (event.type === "append") seen.push(event.message.id);
      });
      // The reader's feed starts listening asynchronously; give it a moment before writing.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await writer.session("shared").appendMessage(text("from-writer"));
      const start = Date.now();
      while (seen.length === 0 && Date.now() - start < 5000)
        await new Promise((resolve) => setTimeout(resolve, 20));
      stop();
      expect(seen).toEqual(["from-writer"]);
    });
  });
});
