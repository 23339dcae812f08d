// Race tests of the PostgreSQL backend (docs/behavior/storage.md#postgresql-concurrency): concurrent writers on every
// connection kind, across connections and processes, must never fork or lose a message.
import { postgresBackend } from "../../src/postgres/index.js";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import {
  PostgresContextProvider,
  PostgresSessionProvider,
  Session,
  SessionManager,
} from "../../src/session/index.js";
import type {
  PostgresClient,
  PostgresConnection,
} from "../../src/backends/postgres/index.js";
import { WRITE_RETRY } from "../../src/backends/postgres/postgres-locking.js";
import { isArborError } from "../../src/session/errors/index.js";
import {
  createTestDatabase,
  describePostgres,
  executeConnection,
  PG_REQUIRED,
  type TestDatabase,
} from "./postgres-database.js";

const WRITERS = 8;
const APPENDS = 500;
const TIMEOUT = 180_000;
const run = promisify(execFile);

const text = (id: string) => ({
  id,
  role: "user",
  parts: [{ type: "text", text: `message ${id}` }],
});

type Kind = "pool" | "client" | "execute";

describePostgres("PostgreSQL races", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ poolSize: 16 });
  });
  afterAll(() => database?.drop());
  beforeEach(() => database.truncate());

  /** `count` independent connections of one kind (8 pg.Clients, 8 pool users, 8 execute wrappers). */
  async function connections(
    kind: Kind,
    count: number,
  ): Promise<PostgresClient[]> {
    return Promise.all(
      Array.from({ length: count }, async () =>
        kind === "pool"
          ? database.pool
          : kind === "client"
            ? database.client()
            : executeConnection(database.pool),
      ),
    );
  }

  /** The session's rows in insertion order. */
  async function rows(sessionId: string) {
    const result = await database.pool.query<{
      id: string;
      parent_id: string | null;
    }>(
      "SELECT id, parent_id FROM assistant_messages WHERE session_id = $1 ORDER BY seq",
      [sessionId],
    );
    return result.rows;
  }

  /** One root, and every message's parent is the message inserted just before it. */
  async function expectChain(sessionId: string, count: number) {
    const chain = await rows(sessionId);
    expect(chain).toHaveLength(count);
    const breaks = chain.filter((row, index) =>
      index === 0
        ? row.parent_id !== null
        : row.parent_id !== chain[index - 1]!.id,
    );
    expect(breaks).toEqual([]);
  }

  /** Every parent exists, one root, no message with two children: still a chain. */
  async function expectIntactChain(sessionId: string) {
    const all = await rows(sessionId);
    const ids = new Set(all.map((row) => row.id));
    const roots = all.filter((row) => row.parent_id === null);
    const dangling = all.filter(
      (row) => row.parent_id !== null && !ids.has(row.parent_id),
    );
    const children = new Map<string, number>();
    for (const row of all)
      if (row.parent_id)
        children.set(row.parent_id, (children.get(row.parent_id) ?? 0) + 1);
    const forks = [...children].filter(([, count]) => count > 1);
    expect({
      roots: all.length === 0 ? 0 : roots.length,
      dangling,
      forks,
    }).toEqual({
      roots: all.length === 0 ? 0 : 1,
      dangling: [],
      forks: [],
    });
    return all.length;
  }

  for (const kind of ["pool", "client", "execute"] as const) {
    it(
      `chains ${WRITERS} writers × ${APPENDS} appends to one session (${kind})`,
      async () => {
        const clients = await connections(kind, WRITERS);
        await Promise.all(
          clients.map(async (client, writer) => {
            const provider = new PostgresSessionProvider(client, "race");
            for (let index = 0; index < APPENDS; index++)
              await provider.appendMessage(text(`w${writer}-${index}`));
          }),
        );
        await expectChain("race", WRITERS * APPENDS);
        const history = await new PostgresSessionProvider(
          database.pool,
          "race",
        ).getHistory();
        expect(history).toHaveLength(WRITERS * APPENDS);
      },
      TIMEOUT,
    );
  }

  it(
    "chains writers on all three connection kinds at once (they share the lock)",
    async () => {
      const clients = [
        ...(await connections("pool", 3)),
        ...(await connections("client", 3)),
        ...(await connections("execute", 3)),
      ];
      await Promise.all(
        clients.map(async (client, writer) => {
          const provider = new PostgresSessionProvider(client, "mixed");
          for (let index = 0; index < 200; index++)
            await provider.appendMessage(text(`w${writer}-${index}`));
        }),
      );
      await expectChain("mixed", clients.length * 200);
    },
    TIMEOUT,
  );

  const worker = fileURLToPath(
    new URL("./postgres-append-worker.mjs", import.meta.url),
  );
  const built = existsSync(
    new URL("../../dist/session/index.js", import.meta.url),
  );
  it.skipIf(!built && !PG_REQUIRED)(
    `chains 2 child processes and ${WRITERS} in-process clients appending to one session${built ? "" : " [skipped: run npm run build first]"}`,
    async () => {
      const children = ["p1", "p2"].map((name) =>
        run(process.execPath, [
          worker,
          database.url,
          "processes",
          name,
          String(APPENDS),
        ]),
      );
      const clients = await connections("client", WRITERS);
      await Promise.all([
        ...children,
        ...clients.map(async (client, writer) => {
          const provider = new PostgresSessionProvider(client, "processes");
          for (let index = 0; index < APPENDS; index++)
            await provider.appendMessage(text(`w${writer}-${index}`));
        }),
      ]);
      await expectChain("processes", (WRITERS + 2) * APPENDS);
    },
    TIMEOUT,
  );

  /**
   * Runs `write`; over an `execute`-style connection a delete or clear that kept losing to the
   * appends may fail with the documented, retryable `WRITE_CONFLICT` (docs/errors.md), having
   * written nothing. Any other error, and any error over a Pool or Client, fails the test.
   */
  async function conflictOrDone(
    kind: Kind,
    write: () => Promise<void>,
  ): Promise<"done" | "conflict"> {
    try {
      await write();
      return "done";
    } catch (error) {
      if (kind !== "execute" || !isArborError(error)) throw error;
      expect(error.code).toBe("WRITE_CONFLICT");
      expect(error.message).toContain(`${WRITE_RETRY.attempts} attempts`);
      return "conflict";
    }
  }

  /** Awaits every promise, then throws the first failure: nothing keeps running after the test. */
  async function settleAll(promises: Promise<unknown>[]): Promise<void> {
    const results = await Promise.allSettled(promises);
    const failed = results.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
  }

  for (const kind of ["pool", "client", "execute"] as const) {
    it(
      `keeps one chain while deletes and clears race with appends (${kind})`,
      async () => {
        const clients = await connections(kind, 6);
        const deleter = new PostgresSessionProvider(clients[4]!, "churn");
        const clearer = new PostgresSessionProvider(clients[5]!, "churn");
        let appended = 0;
        let writing = true;
        const outcomes: Array<"done" | "conflict"> = [];
        const writers = Promise.all(
          clients.slice(0, 4).map(async (client, writer) => {
            const provider = new PostgresSessionProvider(client, "churn");
            for (let index = 0; index < 150; index++) {
              await provider.appendMessage(text(`w${writer}-${index}`));
              appended++;
            }
          }),
        ).finally(() => {
          // Also when a writer failed: the deleter and the clearer stop, and are awaited.
          writing = false;
        });
        const deletes = (async () => {
          while (writing) {
            const current = await rows("churn");
            const victims = current
              .filter((_, index) => index % 7 === 3)
              .map((row) => row.id);
            outcomes.push(
              await conflictOrDone(kind, () =>
                deleter.deleteMessages(victims.slice(0, 3)),
              ),
            );
          }
        })();
        const clears = (async () => {
          for (let round = 0; round < 3 && writing; round++) {
            // Lets some messages accumulate between clears; no outcome depends on this wait.
            await new Promise((resolve) => setTimeout(resolve, 150));
            outcomes.push(
              await conflictOrDone(kind, () => clearer.clearMessages()),
            );
          }
        })();
        await settleAll([writers, deletes, clears]);
        expect(appended).toBe(600);
        expect(outcomes.length).toBeGreaterThan(0);
        const left = await expectIntactChain("churn");
        const history = await new PostgresSessionProvider(
          database.pool,
          "churn",
        ).getHistory();
        expect(history).toHaveLength(left);
      },
      TIMEOUT,
    );
  }

  it(
    `a delete over an execute connection that loses every round fails with WRITE_CONFLICT after ${WRITE_RETRY.attempts} attempts and writes nothing`,
    async () => {
      const pool = executeConnection(database.pool);
      const appender = new PostgresSessionProvider(pool, "starved");
      for (let index = 0; index < 5; index++)
        await appender.appendMessage(text(`m${index}`));
      // A connection on which another writer always gets the session lock first: before each
      // locked write statement, an append from elsewhere commits, so the fingerprint never holds.
      let rounds = 0;
      let extra = 0;
      const losing: PostgresConnection = {
        execute: async (query, args) => {
          if (query.includes("locked AS MATERIALIZED")) {
            rounds++;
            await appender.appendMessage(text(`extra${extra++}`));
          }
          return pool.execute(query, args);
        },
      };
      const deleter = new PostgresSessionProvider(losing, "starved");
      const before = await rows("starved");
      const failure = await deleter.deleteMessages(["m1", "m2"]).then(
        () => null,
        (error: unknown) => error,
      );
      expect(isArborError(failure)).toBe(true);
      expect(failure).toMatchObject({ code: "WRITE_CONFLICT" });
      expect(rounds).toBe(WRITE_RETRY.attempts);
      // Nothing deleted or re-parented: the rows before, then the appends that won.
      const after = await rows("starved");
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after).toHaveLength(before.length + extra);
      await expectChain("starved", before.length + extra);
      // The caller's retry, once the other writer is gone, goes through.
      await new PostgresSessionProvider(pool, "starved").deleteMessages([
        "m1",
        "m2",
      ]);
      expect(await expectIntactChain("starved")).toBe(after.length - 2);
    },
    TIMEOUT,
  );

  it(
    "loses no appendContextBlock from concurrent sessions on separate connections",
    async () => {
      const clients = await connections("client", 6);
      await Promise.all(
        clients.map(async (client, writer) => {
          const session = new Session(
            new PostgresSessionProvider(client, "s"),
            {
              context: [
                {
                  label: "memory",
                  provider: new PostgresContextProvider(client, "memory_s"),
                },
              ],
            },
          );
          for (let index = 0; index < 10; index++)
            await session.appendContextBlock(
              "memory",
              `fact ${writer}-${index}`,
            );
        }),
      );
      const content = (await new PostgresContextProvider(
        database.pool,
        "memory_s",
      ).get())!;
      expect(content.split("\n").sort()).toEqual(
        Array.from(
          { length: 60 },
          (_, index) => `fact ${Math.floor(index / 10)}-${index % 10}`,
        ).sort(),
      );
    },
    TIMEOUT,
  );

  it(
    "turning tool outputs on or off while other connections append leaves every message indexed by the setting in force",
    async () => {
      const call = (id: string) => ({
        id,
        role: "assistant",
        parts: [
          {
            type: "tool-bash",
            toolCallId: `call-${id}`,
            state: "output-available",
            input: { command: "ls" },
            output: { stdout: `pelican ${id}` },
          },
        ],
      });
      const manager = SessionManager.create(postgresBackend(database.pool));
      const withOutput = async () => {
        const result = await database.pool.query<{ n: string }>(
          "SELECT COUNT(*) AS n FROM assistant_messages WHERE text_content LIKE '%pelican%'",
        );
        return Number(result.rows[0]!.n);
      };
      const appendDuring = async (
        change: () => Promise<unknown>,
        round: number,
      ) => {
        const clients = await connections("client", 4);
        let running = true;
        const writers = clients.map(async (client, writer) => {
          const provider = new PostgresSessionProvider(
            client,
            `tools-${writer}`,
          );
          let index = 0;
          // Appends before, during and after the change.
          while (running || index < 10)
            await provider.appendMessage(
              call(`r${round}-w${writer}-${index++}`),
            );
        });
        await new Promise((resolve) => setTimeout(resolve, 30));
        await change();
        running = false;
        await Promise.all(writers);
      };
      for (let writer = 0; writer < 4; writer++) {
        const provider = new PostgresSessionProvider(
          database.pool,
          `tools-${writer}`,
        );
        for (let index = 0; index < 50; index++)
          await provider.appendMessage(call(`old-w${writer}-${index}`));
      }
      await appendDuring(
        () => manager.configureSearchIndex({ toolOutputs: true }),
        1,
      );
      const total = async () =>
        Number(
          (
            await database.pool.query<{ n: string }>(
              "SELECT COUNT(*) AS n FROM assistant_messages",
            )
          ).rows[0]!.n,
        );
      expect(await withOutput()).toBe(await total());
      await appendDuring(
        () => manager.configureSearchIndex({ toolOutputs: false }),
        2,
      );
      expect(await withOutput()).toBe(0);
      expect(await total()).toBeGreaterThan(240);
    },
    TIMEOUT,
  );
});
