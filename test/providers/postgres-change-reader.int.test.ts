// The PostgreSQL change reader across a quick stop and restart (a watcher that leaves and comes
// back, as a reconnecting SSE client does): a start whose first read the restart overtook must
// not move the reader's position. A real database; only the timing of one statement is held by
// the test, so the overtaken start answers after the newer one, with a snapshot taken either
// after it (it would skip rows) or before it (it would deliver rows twice).
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import type { ChangeEvent } from "../../src/session/contracts/changes.js";
import { ChangeFeed } from "../../src/session/state/change-feed.js";
import { ChangeReader } from "../../src/backends/postgres/postgres-change-reader.js";
import { postgresExecutor } from "../../src/backends/postgres/postgres-executor.js";
import type { PostgresExecutor } from "../../src/backends/postgres/postgres-client.js";
import { PostgresSessionProvider } from "../../src/backends/postgres/index.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "./postgres-database.js";

const START_READ = "SELECT txid_current_snapshot()::text AS snap";

type Timing = "newer" | "older";

describePostgres(
  "the PostgreSQL change reader across a stop and restart",
  () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase({ poolSize: 4 });
    });
    afterAll(() => database?.drop());
    beforeEach(() => database.truncate());

    /**
     * The pool's executor, with two statements the test times: the next start read waits for
     * `releaseStart()` before it runs (`"newer"`: its snapshot is newer than the restart's)
     * or after it ran (`"older"`: older); reads of the log wait while `readGate` is set.
     */
    function timedExecutor(when: Timing) {
      const executor = postgresExecutor(database.pool);
      let releaseStart!: () => void;
      const startGate = new Promise<void>(
        (resolve) => (releaseStart = resolve),
      );
      let heldStart = false;
      const timed = {
        releaseStart,
        readGate: null as Promise<void> | null,
        executor: {
          ...executor,
          async query<Row>(sql: string, params?: readonly unknown[]) {
            if (sql.includes("LEFT JOIN arbor_changes")) await timed.readGate;
            if (sql !== START_READ || heldStart)
              return executor.query<Row>(sql, params);
            heldStart = true;
            if (when === "newer") await startGate;
            const rows = await executor.query<Row>(sql, params);
            if (when === "older") await startGate;
            return rows;
          },
        } satisfies PostgresExecutor,
      };
      return timed;
    }

    for (const when of ["newer", "older"] as const) {
      it(`delivers each row once when an overtaken start answers late, with a snapshot ${when} than the restart's`, async () => {
        const timed = timedExecutor(when);
        const feed = new ChangeFeed<bigint>();
        const reader = new ChangeReader(timed.executor, feed);
        const got: string[] = [];
        const stop = feed.add(
          (event: ChangeEvent) => void got.push(event.ids[0]!),
          null,
          () => undefined,
        );
        const writer = new PostgresSessionProvider(database.pool, "chat");
        let openReads = () => {};
        try {
          const overtaken = reader.start(); // its first read is held
          await pause(50);
          reader.stop();
          await reader.start(); // the restart, with its own position
          if (when === "newer") {
            // "a" commits after the restart's snapshot and before the overtaken one.
            timed.readGate = new Promise((resolve) => (openReads = resolve));
            await writer.appendMessage(text("a"));
            timed.releaseStart();
            await overtaken;
            timed.readGate = null;
            openReads();
          } else {
            // "a" commits after both snapshots, and is delivered before the overtaken one answers.
            await writer.appendMessage(text("a"));
            await until(() => got.includes("a"));
            timed.releaseStart();
            await overtaken;
          }
          await until(() => got.includes("a"));
          await writer.appendMessage(text("b"));
          await until(() => got.includes("b"));
          await pause(900); // a safety poll reads again
          expect(got).toEqual(["a", "b"]);
        } finally {
          timed.releaseStart();
          openReads();
          stop();
          reader.stop();
        }
      });
    }
  },
);

const text = (id: string) => ({
  id,
  role: "user",
  parts: [{ type: "text", text: `message ${id}` }],
});

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function until(done: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("[test] timed out waiting");
    await pause(20);
  }
}
