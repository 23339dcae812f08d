// Regression: the PostgreSQL change log took one database-wide advisory lock until commit in
// every write, so 8 writers of 8 sessions serialized on it (a quarter of a bare insert's rate).
// Without that lock, writes of different sessions commit out of `seq` order; the reader must
// still deliver every change exactly once, each session's in commit order, across a seq held
// open while a later one commits and across the permanent gap a rollback leaves.
import type pg from "pg";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { PostgresSessionProvider } from "../../src/session/index.js";
import type { ChangeEvent } from "../../src/session/contracts/changes.js";
import type { PostgresClient } from "../../src/backends/postgres/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "./postgres-database.js";

const WRITERS = 8;
const APPENDS = 60;
const TIMEOUT = 120_000;

const text = (id: string) => ({
  id,
  role: "user",
  parts: [{ type: "text", text: `message ${id}` }],
});

describePostgres("PostgreSQL change feed without a global lock", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ poolSize: 16 });
  });
  afterAll(() => database?.drop());
  beforeEach(() => database.truncate());

  const watchers: Array<[string, (db: TestDatabase) => PostgresClient]> = [
    ["a pg Pool", (db) => db.pool],
    ["postgres.js", (db) => db.postgresJs()],
  ];

  for (const [name, connect] of watchers) {
    it(
      `8 writers of 8 sessions, a seq held open and a rollback: every change once, in commit order per session (watcher on ${name})`,
      async () => {
        const events: ChangeEvent[] = [];
        const watcher = new PostgresSessionProvider(connect(database), "w");
        const stop = watcher.watchChanges((event) => void events.push(event), {
          allSessions: true,
        });
        // A read issued through the provider waits until the watch knows where it starts.
        await watcher.getMessage("none");
        try {
          const held = await database.client();
          const other = await database.client();
          const rolled = await database.client();
          // The old function made `other` wait on `held`'s lock: fail fast instead of hanging.
          await other.query("SET lock_timeout = '5s'");
          await rolled.query("SET lock_timeout = '5s'");
          const record = (client: pg.Client, session: string, id: string) =>
            client
              .query<{ seq: string }>(
                "SELECT arbor_record_change($1, 'append', $2::jsonb)::text AS seq",
                [session, JSON.stringify([id])],
              )
              .then((result) => BigInt(result.rows[0]!.seq));

          await held.query("BEGIN");
          const heldSeq = await record(held, "held", "h1");
          await rolled.query("BEGIN");
          const rolledSeq = await record(rolled, "rolled", "r1");
          await other.query("BEGIN");
          const laterSeq = await record(other, "other", "o1");
          await other.query("COMMIT");
          expect(laterSeq > rolledSeq && rolledSeq > heldSeq).toBe(true);
          await until(() => has(events, "other", "o1"));
          await rolled.query("ROLLBACK");

          // 8 writers on 8 sessions while `held` still holds the lowest open seq.
          const writers = Array.from({ length: WRITERS }, async (_, w) => {
            const provider = new PostgresSessionProvider(
              database.pool,
              `s${w}`,
            );
            for (let i = 0; i < APPENDS; i++) {
              await provider.appendMessage(text(`s${w}-${i}`));
            }
          });
          await Promise.all(writers);
          await held.query("COMMIT");
          await until(() => has(events, "held", "h1"));
          await until(() => events.length >= WRITERS * APPENDS + 2);
          // Writes issued now still arrive (the cursor moved past the permanent gap).
          await new PostgresSessionProvider(
            database.pool,
            "after",
          ).appendMessage(text("after-1"));
          await until(() => has(events, "after", "after-1"));

          const keys = events.map(
            (event) => `${event.sessionId}/${event.ids.join(",")}`,
          );
          expect(new Set(keys).size).toBe(keys.length);
          expect(keys.length).toBe(WRITERS * APPENDS + 3);
          expect(has(events, "rolled", "r1")).toBe(false);
          // Rows since this case began (the shared truncate keeps the change log).
          const committed = await database.pool.query<{
            session_id: string;
            ids: string[];
          }>(
            "SELECT session_id, ids FROM arbor_changes WHERE seq >= $1 ORDER BY seq",
            [heldSeq.toString()],
          );
          for (let w = 0; w < WRITERS; w++) {
            const session = `s${w}`;
            const received = events
              .filter((event) => event.sessionId === session)
              .map((event) => event.ids[0]);
            expect(received).toEqual(
              Array.from({ length: APPENDS }, (_, i) => `${session}-${i}`),
            );
            expect(received).toEqual(
              committed.rows
                .filter((row) => row.session_id === session)
                .map((row) => row.ids[0]),
            );
          }
        } finally {
          stop();
        }
      },
      TIMEOUT,
    );
  }
});

function has(events: ChangeEvent[], session: string, id: string): boolean {
  return events.some(
    (event) => event.sessionId === session && event.ids.includes(id),
  );
}

async function until(done: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("[test] timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
