// Resuming PostgreSQL's change feed (docs/behavior/events-and-audit.md, "Resuming"): a watcher
// stops (its process is gone), writes go on, among them a lower seq that commits after a higher
// one the watcher already had; a new watcher on another client (another process, as far as the
// feed is concerned: its own reader, its own LISTEN connection) resumes from the last cursor and
// gets every missed change exactly once. A position older than the log keeps gets a `reset`.
// And the LISTEN connection survives its backend being terminated (57P01), as in a server
// restart: no unhandled error, a new LISTEN, nothing missed.
import { postgresBackend } from "../../src/postgres/index.js";
import pg from "pg";
import postgres from "postgres";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import type { ChangeEvent } from "../../src/session/contracts/changes.js";
import { PostgresSessionProvider } from "../../src/backends/postgres/index.js";
import type { PostgresClient } from "../../src/backends/postgres/postgres-client.js";
import { SessionManager } from "../../src/session/manager/session-manager.js";
import {
  createTestDatabase,
  describePostgres,
  type TestDatabase,
} from "./postgres-database.js";

const text = (id: string) => ({
  id,
  role: "user",
  parts: [{ type: "text", text: `message ${id}` }],
});

describePostgres("resuming the PostgreSQL change feed", () => {
  let database: TestDatabase;
  const opened: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    database = await createTestDatabase({ poolSize: 8 });
  });
  afterAll(async () => {
    await Promise.allSettled(opened.map((close) => close()));
    await database?.drop();
  });
  beforeEach(() => database.truncate());

  /** A new client of the database: a fresh change reader, as in another process. */
  const clients: Array<[string, (name?: string) => PostgresClient]> = [
    [
      "pg Pool",
      (name = "arbor-test") => {
        const pool = new pg.Pool({
          connectionString: database.url,
          max: 4,
          application_name: name,
        });
        pool.on("error", () => undefined);
        opened.push(() => pool.end());
        return pool;
      },
    ],
    [
      "postgres.js",
      (name = "arbor-test") => {
        const sql = postgres(database.url, {
          max: 4,
          onnotice: () => undefined,
          connection: { application_name: name },
        });
        opened.push(() => sql.end({ timeout: 1 }));
        return sql;
      },
    ],
  ];

  for (const [name, connect] of clients) {
    it(`a store-wide watch on a new ${name} resumes past a lower seq committed after a higher one, once each`, async () => {
      const first = connect();
      const manager = SessionManager.create(postgresBackend(first));
      const seen: ChangeEvent[] = [];
      const stop = manager.watch((event) => void seen.push(event));
      await new PostgresSessionProvider(first, "probe").getMessage("none");

      const held = await database.client();
      await held.query("BEGIN");
      const heldSeq = await record(held, "held", "h1");
      await new PostgresSessionProvider(database.pool, "other").appendMessage(
        text("o1"),
      );
      await until(() => has(seen, "other", "o1"));
      const last = seen.find((event) => event.ids[0] === "o1")!;
      expect(last.seq).toBeGreaterThan(Number(heldSeq));
      stop(); // the watcher's process is gone

      await held.query("COMMIT"); // the lower seq commits after the higher one
      await new PostgresSessionProvider(database.pool, "x").appendMessage(
        text("x1"),
      );

      const second = connect();
      const resumed: ChangeEvent[] = [];
      const again = SessionManager.create(postgresBackend(second)).watch(
        (event) => void resumed.push(event),
        { after: last.cursor },
      );
      try {
        await until(() => resumed.length >= 2);
        await new PostgresSessionProvider(second, "y").appendMessage(
          text("y1"),
        );
        await until(() => has(resumed, "y", "y1"));
        await pause(100);
        expect(
          resumed.map((event) => `${event.sessionId}/${event.ids[0]}`),
        ).toEqual(["held/h1", "x/x1", "y/y1"]);
        // The cursor of any delivered event resumes right after it.
        const fromMiddle: ChangeEvent[] = [];
        const third = SessionManager.create(postgresBackend(connect())).watch(
          (event) => void fromMiddle.push(event),
          { after: resumed[0]!.cursor },
        );
        await until(() => fromMiddle.length >= 2);
        await pause(100);
        third();
        expect(fromMiddle.map((event) => event.ids[0])).toEqual(["x1", "y1"]);
      } finally {
        again();
      }
    });

    it(`a subscriber on ${name} that keeps dropping and resuming under 8 concurrent writers misses nothing`, async () => {
      const WRITERS = 8;
      const APPENDS = 30;
      const MIN_RESUMES = 6;
      const subscriber = connect("arbor-churn");
      const manager = SessionManager.create(postgresBackend(subscriber));
      const got: string[] = [];
      let cursor: string | undefined;
      let resets = 0;
      let resumes = 0;
      const listen = () =>
        manager.watch(
          (event) => {
            if (event.type === "reset") resets++;
            else if (event.sessionId.startsWith("churn-"))
              got.push(`${event.sessionId}/${event.ids[0]}`);
            cursor = event.cursor;
          },
          cursor === undefined
            ? { onStart: (position) => (cursor ??= position) }
            : { after: cursor },
        );
      let stop = listen();
      await until(() => cursor); // where the first watch starts: resumable from there
      let done = false;
      // Each writer appends at least APPENDS, and goes on until the subscriber has left and come
      // back MIN_RESUMES times: the churn must happen while writes land, however fast they are.
      const written = Array.from({ length: WRITERS }, () => 0);
      const writers = Promise.all(
        Array.from({ length: WRITERS }, async (_, w) => {
          const provider = new PostgresSessionProvider(
            database.pool,
            `churn-${w}`,
          );
          for (let i = 0; i < APPENDS || resumes < MIN_RESUMES; i++) {
            await provider.appendMessage(text(`c${w}-${i}`));
            written[w] = i + 1;
          }
        }),
      ).finally(() => (done = true));
      while (!done) {
        await pause(20 + Math.random() * 30);
        stop(); // gone, as after a restart…
        await pause(Math.random() * 20);
        stop = listen(); // …and back, from the last position it received
        resumes++;
      }
      await writers;
      const total = written.reduce((sum, count) => sum + count, 0);
      try {
        await until(() => got.length >= total);
        await pause(200);
      } finally {
        stop();
      }
      expect(resumes).toBeGreaterThanOrEqual(MIN_RESUMES);
      expect(resets).toBe(0);
      expect(new Set(got).size).toBe(got.length);
      expect(got).toHaveLength(total);
      for (let w = 0; w < WRITERS; w++) {
        expect(got.filter((key) => key.startsWith(`churn-${w}/`))).toEqual(
          Array.from(
            { length: written[w]! },
            (_, i) => `churn-${w}/c${w}-${i}`,
          ),
        );
      }
    });

    it(`a watch of one session on a new ${name} resumes from a seq`, async () => {
      const writer = new PostgresSessionProvider(database.pool, "chat");
      await writer.appendMessage(text("c1"));
      await writer.appendMessage(text("c2"));
      const [row] = (
        await database.pool.query<{ seq: string }>(
          "SELECT seq::text FROM arbor_changes WHERE session_id = 'chat' ORDER BY seq LIMIT 1",
        )
      ).rows;
      await new PostgresSessionProvider(
        database.pool,
        "elsewhere",
      ).appendMessage(text("e1"));
      const events: ChangeEvent[] = [];
      const watcher = new PostgresSessionProvider(connect(), "chat");
      const stop = watcher.watchChanges((event) => void events.push(event), {
        after: Number(row!.seq),
      });
      try {
        await until(() => events.length >= 1);
        await writer.appendMessage(text("c3"));
        await until(() => events.length >= 2);
        await pause(100);
        expect(events.map((event) => event.ids[0])).toEqual(["c2", "c3"]);
        expect(events[1]!.seq).toBeGreaterThan(events[0]!.seq);
      } finally {
        stop();
      }
    });

    it(`a position older than the log keeps gets a reset on ${name}, then live changes`, async () => {
      const client = connect();
      const writer = new PostgresSessionProvider(database.pool, "old");
      const early: ChangeEvent[] = [];
      const reader = new PostgresSessionProvider(client, "old");
      const stop = reader.watchChanges((event) => void early.push(event), {
        allSessions: true,
      });
      await reader.getMessage("none"); // the watch has its starting point
      await writer.appendMessage(text("first"));
      await until(() => early.length >= 1);
      stop();
      // More than the 10,000 rows the log keeps, in one statement (trimmed every 1,000th row).
      await database.pool.query(
        "SELECT arbor_record_change('bulk', 'append', '[\"b\"]'::jsonb) FROM generate_series(1, 11000)",
      );
      const events: ChangeEvent[] = [];
      const again = SessionManager.create(postgresBackend(connect())).watch(
        (event) => void events.push(event),
        { after: early[0]!.cursor },
      );
      const bySeq: ChangeEvent[] = [];
      const perSession = new PostgresSessionProvider(
        connect(),
        "old",
      ).watchChanges((event) => void bySeq.push(event), {
        after: early[0]!.seq,
      });
      try {
        await until(() => events.length >= 1 && bySeq.length >= 1);
        await writer.appendMessage(text("later"));
        await until(() => events.length >= 2 && bySeq.length >= 2);
        expect(events.map((event) => event.type)).toEqual(["reset", "append"]);
        expect(events[1]!.ids).toEqual(["later"]);
        expect(bySeq.map((event) => event.type)).toEqual(["reset", "append"]);
        // Resuming from the reset's own position is not stale again.
        const fromReset: ChangeEvent[] = [];
        const fourth = new PostgresSessionProvider(
          connect(),
          "old",
        ).watchChanges((event) => void fromReset.push(event), {
          after: bySeq[0]!.seq,
        });
        await until(() => fromReset.length >= 1);
        fourth();
        expect(fromReset.map((event) => event.ids[0])).toEqual(["later"]);
        // A position of another cluster (transactions this one never ran) resets too.
        const foreign: ChangeEvent[] = [];
        const fifth = SessionManager.create(postgresBackend(connect())).watch(
          (event) => void foreign.push(event),
          { after: "900000000000:900000000001:" },
        );
        await until(() => foreign.length >= 1);
        fifth();
        expect(foreign.map((event) => event.type)).toEqual(["reset"]);
      } finally {
        again();
        perSession();
      }
    });

    it(`the LISTEN connection of ${name} survives pg_terminate_backend (57P01) and misses nothing`, async () => {
      const client = connect("arbor-listen-probe");
      const events: ChangeEvent[] = [];
      const warnings: unknown[] = [];
      const warn = console.warn;
      console.warn = (...args: unknown[]) => void warnings.push(args);
      const watcher = new PostgresSessionProvider(client, "probe");
      const stop = watcher.watchChanges((event) => void events.push(event), {
        allSessions: true,
      });
      try {
        await watcher.getMessage("none");
        const before = await until(() => listeners(), 20_000);
        expect(before).toHaveLength(1);
        await database.pool.query("SELECT pg_terminate_backend($1)", [
          before[0],
        ]);
        // Written while the LISTEN connection is gone.
        const writer = new PostgresSessionProvider(database.pool, "during");
        await writer.appendMessage(text("d1"));
        const after = await until(async () => {
          const now = await listeners();
          return now?.length === 1 && now[0] !== before[0] ? now : null;
        }, 20_000);
        expect(after[0]).not.toBe(before[0]);
        await writer.appendMessage(text("d2"));
        await until(() => events.length >= 2);
        await pause(100);
        expect(events.map((event) => event.ids[0])).toEqual(["d1", "d2"]);
        // Logged once for the outage, not per retry.
        expect(warnings.length).toBeLessThanOrEqual(2);
      } finally {
        stop();
        console.warn = warn;
      }
    });

    it(`a watch on ${name} survives every connection of the database being terminated, as in a restart`, async () => {
      const client = connect("arbor-restart-probe");
      const events: ChangeEvent[] = [];
      const warn = console.warn;
      console.warn = () => undefined;
      const watcher = new PostgresSessionProvider(client, "probe");
      const stop = watcher.watchChanges((event) => void events.push(event), {
        allSessions: true,
      });
      try {
        await watcher.getMessage("none");
        await new PostgresSessionProvider(database.pool, "r").appendMessage(
          text("r1"),
        );
        await until(() => events.length >= 1);
        const admin = new pg.Client({ connectionString: database.url });
        await admin.connect();
        try {
          await admin.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()`,
          );
          // Written by another client while every connection of the watcher is gone.
          await admin.query(
            "SELECT arbor_record_change('r', 'append', '[\"r2\"]'::jsonb)",
          );
        } finally {
          await admin.end();
        }
        await until(() => events.length >= 2);
        await new PostgresSessionProvider(client, "r").appendMessage(
          text("r3"),
        );
        await until(() => events.length >= 3);
        await pause(100);
        expect(events.map((event) => event.ids[0])).toEqual(["r1", "r2", "r3"]);
      } finally {
        stop();
        console.warn = warn;
      }
    });
  }

  /** Backends of this database LISTENing on the change channel. */
  async function listeners(): Promise<number[] | null> {
    const { rows } = await database.pool.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = 'arbor-listen-probe'
        AND query ILIKE 'listen%arbor_changes%'`,
    );
    return rows.length > 0 ? rows.map((row) => row.pid) : null;
  }
});

async function record(client: pg.Client, session: string, id: string) {
  const result = await client.query<{ seq: string }>(
    "SELECT arbor_record_change($1, 'append', $2::jsonb)::text AS seq",
    [session, JSON.stringify([id])],
  );
  return BigInt(result.rows[0]!.seq);
}

function has(events: ChangeEvent[], session: string, id: string): boolean {
  return events.some(
    (event) => event.sessionId === session && event.ids.includes(id),
  );
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function until<T>(
  done: () => T | Promise<T>,
  ms = 10_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await done();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("[test] timed out waiting");
    await pause(20);
  }
}
