// Concurrent POSTs of one message id on PostgreSQL (docs/server.md#messages), over `pg` and over
// postgres.js: several apps, each over its own connection pool, so the requests race in the
// database and not only inside one process's append lock. Exactly one request creates the message
// (201); the others answer 200 for the same body and 409 MESSAGE_EXISTS for another one.
import { postgresBackend } from "../../src/postgres/index.js";
import pg from "pg";
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createApp } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import type { PostgresClient } from "../../src/backends/postgres/postgres-client.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "../providers/postgres-database.js";
import { client, text, type Call } from "./support/client.js";
import { RACERS, statusCounts } from "./support/cases-append-races.js";

const APPS = 4;
const ROUNDS = 30;

function racesOn(
  name: string,
  connect: (database: TestDatabase) => {
    client: PostgresClient;
    close: () => Promise<unknown>;
  },
): void {
  describePostgres(name, () => {
    let database: TestDatabase | undefined;
    const closers: Array<() => Promise<unknown>> = [];
    let calls: Call[] = [];

    beforeAll(async () => {
      database = await createTestDatabase();
      calls = Array.from({ length: APPS }, () => {
        const connection = connect(database!);
        closers.push(connection.close);
        return client(
          createApp({
            manager: SessionManager.create(postgresBackend(connection.client)),
          }),
        );
      });
    }, 60_000);
    afterAll(async () => {
      await Promise.allSettled(closers.map((close) => close()));
      await database?.drop();
    }, 60_000);

    it(`answers ${RACERS} concurrent POSTs of one id over ${APPS} pools with one 201, ${ROUNDS} rounds`, async () => {
      const id = (
        await calls[0]!("POST", "/v1/sessions", { json: { name: "Race" } })
      ).body.id;
      const path = `/v1/sessions/${id}/messages`;
      for (let round = 0; round < ROUNDS; round++) {
        const same = text(`same-${round}`, `Round ${round}`);
        const sameAnswers = await Promise.all(
          Array.from({ length: RACERS }, (_, index) =>
            calls[index % APPS]!("POST", path, { json: { message: same } }),
          ),
        );
        expect({ round, counts: statusCounts(sameAnswers) }).toEqual({
          round,
          counts: { 201: 1, 200: RACERS - 1 },
        });

        const differentAnswers = await Promise.all(
          Array.from({ length: RACERS }, (_, index) =>
            calls[index % APPS]!("POST", path, {
              json: { message: text(`other-${round}`, `Body ${index}`) },
            }),
          ),
        );
        expect({ round, counts: statusCounts(differentAnswers) }).toEqual({
          round,
          counts: { 201: 1, 409: RACERS - 1 },
        });
        const created = differentAnswers.find(
          (answer) => answer.status === 201,
        )!;
        const stored = await calls[1]!("GET", `${path}/other-${round}`);
        expect(stored.body.message).toEqual(created.body.message);
      }
      const session = await calls[2]!("GET", `/v1/sessions/${id}`);
      expect(session.body.messageCount).toBe(2 * ROUNDS);
    }, 120_000);
  });
}

racesOn("POST races on PostgreSQL over pg Pools", (database) => {
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  pool.on("error", () => undefined);
  return { client: pool, close: () => pool.end() };
});
racesOn("POST races on PostgreSQL over postgres.js", (database) => {
  const sql = postgres(database.url, { max: 4, onnotice: () => undefined });
  return { client: sql, close: () => sql.end({ timeout: 5 }) };
});
