// The provider conformance suite over postgres.js (the `postgres` package), which binds
// parameters by the types the server describes (a `::json` parameter gets JSON.stringify again)
// and parses results by column type (int8 as text, timestamptz as Date, jsonb parsed): once
// through the execute-style adapter docs/postgres.md prints, once with `sql` passed as it is.
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  PostgresSessionProvider,
  PostgresSessionRegistry,
} from "../../src/postgres/index.js";
import type { PostgresClient } from "../../src/backends/postgres/postgres-client.js";
import {
  createTestDatabase,
  describePostgres,
  documentedPostgresJsConnection,
  runPostgresConformance,
  type TestDatabase,
} from "./postgres-database.js";

runPostgresConformance({
  name: "PostgresSessionProvider over postgres.js (documented execute adapter)",
  connect: (database) => documentedPostgresJsConnection(database.postgresJs()),
  capabilities: { stopWords: true },
});

runPostgresConformance({
  name: "PostgresSessionProvider over a postgres.js sql instance",
  connect: (database) => database.postgresJs(),
  capabilities: { stopWords: true },
});

describePostgres("postgres.js stores what pg stores", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  const connections: Array<[string, () => PostgresClient]> = [
    [
      "documented execute adapter",
      () => documentedPostgresJsConnection(database.postgresJs()),
    ],
    ["sql instance", () => database.postgresJs()],
  ];

  for (const [kind, connect] of connections) {
    // Regression: a JSON text bound to `?::jsonb` was serialised again by postgres.js, so meta
    // was stored as a JSON string and read back as undefined.
    it(`(${kind}) compaction meta is stored as a JSON object and read back`, async () => {
      await database.truncate();
      const provider = new PostgresSessionProvider(connect(), "s");
      for (const id of ["a", "b"])
        await provider.appendMessage({
          id,
          role: "user",
          parts: [{ type: "text", text: id }],
        });
      const meta = { summarizer: "manual", tokensBefore: 12 };
      const stored = await provider.addCompaction("sum", "a", "b", meta);
      expect(stored.meta).toEqual(meta);
      expect((await provider.getCompactions())[0]!.meta).toEqual(meta);
      const { rows } = await database.pool.query<{ type: string }>(
        "SELECT jsonb_typeof(meta) AS type FROM assistant_compactions",
      );
      expect(rows).toEqual([{ type: "object" }]);
    });

    // Regression: `json_array_elements_text(?::json)` received a JSON string scalar.
    it(`(${kind}) deleteMessages and importRecords bind id lists`, async () => {
      await database.truncate();
      const provider = new PostgresSessionProvider(connect(), "s");
      for (const id of ["a", "b", "c"])
        await provider.appendMessage({
          id,
          role: "user",
          parts: [{ type: "text", text: id }],
        });
      await provider.deleteMessages(["b"]);
      expect((await provider.getHistory()).map((m) => m.id)).toEqual([
        "a",
        "c",
      ]);
      const copy = provider.forSession("copy");
      await copy.importRecords({
        messages: await provider.exportMessages(),
        compactions: [],
      });
      expect((await copy.getHistory()).map((m) => m.id)).toEqual(["a", "c"]);
    });

    it(`(${kind}) registry timestamps, counters and block history read as with pg`, async () => {
      await database.truncate();
      const registry = new PostgresSessionRegistry(connect());
      await registry.insert({
        id: "r",
        name: "r",
        parent_session_id: null,
        model: null,
        source: null,
        input_tokens: 0,
        output_tokens: 0,
        estimated_cost: 0,
        end_reason: null,
        created_at: "2024-05-06T07:08:09.123456+02:00",
        updated_at: "2024-05-06T05:08:09.1Z",
      });
      await registry.addUsage("r", 3, 4, 0.5, "2024-05-06T05:08:10.000Z");
      const viaPg = await new PostgresSessionRegistry(database.pool).get("r");
      expect(await registry.get("r")).toEqual(viaPg);
      expect(viaPg).toMatchObject({
        input_tokens: 3,
        output_tokens: 4,
        estimated_cost: 0.5,
        created_at: "2024-05-06T05:08:09.123Z",
      });
      const history = new PostgresSessionProvider(
        connect(),
        "r",
      ).createBlockHistory();
      const version = await history.record("memory", {
        content: "x",
        previousContent: null,
        source: "tool",
        at: "2024-05-06T07:08:09.5+02:00",
      });
      expect(version).toMatchObject({
        version: 1,
        at: "2024-05-06T05:08:09.500Z",
      });
    });
  }
});
