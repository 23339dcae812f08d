// The rows of `node bench/run.mjs --own` as instruction-count workloads, for
// `node bench/compare-builds.mjs <commit> --instructions` (bench/instructions.mjs runs them).
//
// Each row has a `setup` (data built, handles opened: not counted) and a `measure` (the part the
// timing row times: counted). `node bench/instruction-rows.mjs <row id>` runs one row in this
// process and brackets `measure` with two marker calls that callgrind is told to watch:
// `os.loadavg()` reaches libuv's `uv_loadavg` (callgrind `--zero-before`: every count so far is
// dropped) and `os.uptime()` reaches `uv_uptime` (`--dump-before`: the counts since are written
// out). Neither is called anywhere else in these workloads.
//
// Sizes are a tenth of the timing rows' where building the data under callgrind would take
// minutes (the `counted` text of each row says what runs). Rows that the timing bench reports as
// a median of N calls make N unmeasured calls first and then count N: a median leaves out the
// calls that compile, and in a window of 20 calls the optimizing compiler's run for one build
// and not the other (it decides by call counts) moved a row by 20%.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir, uptime } from "node:os";
import { queryObjects } from "node:v8";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  applyPostgresSchema,
  InMemorySessionProvider,
  PostgresSessionProvider,
  Session,
  SessionManager,
} from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import { throwawayDatabase } from "./standalone.mjs";
import { insertPostgresChain, message, sentence } from "./workload.mjs";

const n = (count) => count.toLocaleString("en");
const neverCompact = async () => null;

/** Appends messages `from`..`to` with appendAll, 1,000 a call (setup only). */
async function build(session, from, to) {
  for (let start = from; start < to; start += 1_000) {
    const batch = [];
    for (let i = start; i < Math.min(to, start + 1_000); i++)
      batch.push(message(i));
    await session.appendAll(batch);
  }
}

/** `count` awaited calls of `fn(k)`, after `count` unmeasured calls `fn(-1)` in setup. */
function repeated(count, fn) {
  return {
    warm: async () => {
      for (let k = 0; k < count; k++) await fn(-1);
    },
    measure: async () => {
      for (let k = 0; k < count; k++) await fn(k);
    },
  };
}

const rows = [];
/** A row: `setup(dir)` returns the state that `measure(state)` counts on; `teardown(state)` after. */
const row = (workload, backend, counted, setup) =>
  rows.push({ id: rows.length + 1, workload, backend, counted, setup });

// 1. Appends (timing: 10,000 each).
const APPENDS = 1_000;
const appendAll = (session) => async () => {
  for (let i = 0; i < APPENDS; i++) await session.appendMessage(message(i));
};
row("append 10,000", "sqlite file", `${n(APPENDS)} appends`, (dir) => {
  const db = openSqlite(join(dir, "append.db"));
  return {
    measure: appendAll(Session.create(db).forSession("bench")),
    teardown: () => db.close(),
  };
});
row("append 10,000", "in-memory", `${n(APPENDS)} appends`, () => ({
  measure: appendAll(Session.create(new InMemorySessionProvider())),
}));
row(
  "append 10,000",
  "sqlite + compactAfter",
  `${n(APPENDS)} appends`,
  (dir) => {
    const db = openSqlite(join(dir, "append-compact.db"));
    return {
      measure: appendAll(
        Session.create(db)
          .forSession("bench")
          .onCompaction(neverCompact)
          .compactAfter(Number.MAX_SAFE_INTEGER),
      ),
      teardown: () => db.close(),
    };
  },
);
row("append 10,000", "memory + compactAfter", `${n(APPENDS)} appends`, () => ({
  measure: appendAll(
    Session.create(new InMemorySessionProvider())
      .onCompaction(neverCompact)
      .compactAfter(Number.MAX_SAFE_INTEGER),
  ),
}));

// 2. getHistory by depth (timing: 1,000, 10,000 and 100,000).
for (const [timed, depth] of [
  [1_000, 100],
  [10_000, 1_000],
  [100_000, 10_000],
]) {
  /** A SQLite file holding a `depth`-message chain, and the handle and session that built it. */
  const deep = async (dir) => {
    const file = join(dir, "deep.db");
    const db = openSqlite(file);
    const session = Session.create(db).forSession("deep");
    await build(session, 0, depth);
    return { file, db, session };
  };
  row(
    `getHistory depth ${n(timed)}, warm`,
    "sqlite file",
    `5 reads of ${n(depth)}`,
    async (dir) => {
      const { db, session } = await deep(dir);
      const reads = repeated(5, () => session.getHistory());
      await reads.warm();
      return { measure: reads.measure, teardown: () => db.close() };
    },
  );
  row(
    `append + getHistory at depth ${n(timed)}`,
    "sqlite file",
    `5 turns at ${n(depth)}`,
    async (dir) => {
      const { db, session } = await deep(dir);
      let next = depth;
      const turns = repeated(5, async () => {
        await session.appendMessage(message(next++));
        return session.getHistory();
      });
      await turns.warm();
      return { measure: turns.measure, teardown: () => db.close() };
    },
  );
  row(
    `getHistory depth ${n(timed)}, uncached`,
    "sqlite file",
    `3 reads of ${n(depth)}, new handle each`,
    async (dir) => {
      const { file, db } = await deep(dir);
      db.close();
      const reads = repeated(3, async () => {
        const handle = openSqlite(file);
        await Session.create(handle).forSession("deep").getHistory();
        handle.close();
      });
      await reads.warm();
      return { measure: reads.measure };
    },
  );
  row(
    `getHistory depth ${n(timed)}, cold`,
    "sqlite file",
    `1 read of ${n(depth)} on a new handle`,
    async (dir) => {
      const { file, db } = await deep(dir);
      db.close();
      const cold = openSqlite(file);
      return {
        measure: () => Session.create(cold).forSession("deep").getHistory(),
        teardown: () => cold.close(),
      };
    },
  );
}

// 3. Search (timing: over 50,000 messages).
const SEARCHED = 5_000;
row(
  "first search after 50,000 appends",
  "sqlite file",
  `first search after ${n(SEARCHED)} appends`,
  async (dir) => {
    const db = openSqlite(join(dir, "search.db"));
    const session = Session.create(db).forSession("search");
    await build(session, 0, SEARCHED);
    return {
      measure: () => session.search("deploy", { limit: 20 }),
      teardown: () => db.close(),
    };
  },
);
for (const [label, query] of [
  ["one term", "deploy"],
  ["two terms", "deploy friday"],
]) {
  row(
    `search 50,000, ${label}`,
    "sqlite file",
    `5 searches of ${n(SEARCHED)}`,
    async (dir) => {
      const db = openSqlite(join(dir, "search.db"));
      const session = Session.create(db).forSession("search");
      await build(session, 0, SEARCHED);
      const searches = repeated(5, () => session.search(query, { limit: 20 }));
      await searches.warm();
      return { measure: searches.measure, teardown: () => db.close() };
    },
  );
  row(
    `search 50,000, ${label}`,
    "in-memory",
    `5 searches of ${n(SEARCHED)}`,
    async () => {
      const session = Session.create(new InMemorySessionProvider());
      await build(session, 0, SEARCHED);
      const searches = repeated(5, () => session.search(query, { limit: 20 }));
      await searches.warm();
      return { measure: searches.measure };
    },
  );
}

// 4. PostgreSQL (ARBOR_TEST_PG_URL): the client process's instructions only; the server's work
// is not counted. Timing: 2,000 appends, 8 writers × 500, depth 10,000. How the replies arrive
// steers the client's event loop and compiler, so these counts repeat less closely. The append
// rows run their whole workload once on other sessions first: in a window of a few hundred
// appends, V8's optimizing compiler (on the main thread under --predictable) would otherwise be
// most of what differs between two builds, where the timing row's 2,000 appends amortize it.
const pgUrl = () => {
  const url = process.env.ARBOR_TEST_PG_URL;
  if (!url) throw new Error("the PostgreSQL rows need ARBOR_TEST_PG_URL");
  return url;
};
/** A throwaway database with Arbor's schema; teardown drops it. */
async function postgres() {
  const database = await throwawayDatabase(pgUrl(), "arbor_instr");
  await applyPostgresSchema(database.pool);
  return database;
}
const PG_APPENDS = 200;
const PG_WRITERS = 8;
const PG_EACH = 50;
const PG_DEPTH = 10_000;
row(
  "append 2,000",
  "postgres pool",
  `${n(PG_APPENDS)} appends (client)`,
  async () => {
    const { pool, drop } = await postgres();
    const appends = (id) => async () => {
      const session = Session.create(new PostgresSessionProvider(pool, id));
      for (let i = 0; i < PG_APPENDS; i++)
        await session.appendMessage(message(i));
    };
    await appends("warm")();
    return { measure: appends("bench"), teardown: drop };
  },
);
row(
  "append 8×500, 8 sessions",
  "postgres pool",
  `${PG_WRITERS}×${PG_EACH} appends (client)`,
  async () => {
    const { pool, drop } = await postgres();
    const writers = (prefix) => () =>
      Promise.all(
        Array.from({ length: PG_WRITERS }, async (_, w) => {
          const session = Session.create(
            new PostgresSessionProvider(pool, `${prefix}-${w}`),
          );
          for (let i = 0; i < PG_EACH; i++)
            await session.appendMessage(message(i));
        }),
      );
    await writers("warm")();
    return { measure: writers("writer"), teardown: drop };
  },
);
/** The timing bench's 10,000-deep chain, inserted in one statement. */
async function postgresChain() {
  const database = await postgres();
  await insertPostgresChain(database.pool, PG_DEPTH);
  return {
    ...database,
    session: Session.create(new PostgresSessionProvider(database.pool, "deep")),
  };
}
row(
  "getHistory depth 10,000, warm",
  "postgres pool",
  `5 reads of ${n(PG_DEPTH)} (client)`,
  async () => {
    const { session, drop } = await postgresChain();
    const reads = repeated(5, () => session.getHistory());
    await reads.warm();
    return { measure: reads.measure, teardown: drop };
  },
);
row(
  "getRecentHistory 64 KB of depth 10,000",
  "postgres pool",
  `5 windows of ${n(PG_DEPTH)} (client)`,
  async () => {
    const { session, drop } = await postgresChain();
    const reads = repeated(5, () => session.getRecentHistory(64_000));
    await reads.warm();
    return { measure: reads.measure, teardown: drop };
  },
);

// 5. Writes other than append (bench/write-workloads.mjs; timing: 100, 10,000 and 100,000).
const SAMPLES = 20;
for (const [timed, size] of [
  [100, 100],
  [10_000, 1_000],
  [100_000, 10_000],
]) {
  /** A `size`-message session with the search index caught up, as the timing bench has it. */
  const indexed = async (dir) => {
    const db = openSqlite(join(dir, "writes.db"));
    const session = Session.create(db).forSession("writes");
    await build(session, 0, size);
    await session.search("deploy", { limit: 1 });
    return { db, session };
  };
  // Targets spread over the session, as in the timing bench; the warm-up call (k = -1) takes
  // one between the first two, which no counted call touches.
  const at = (k, offset) =>
    k < 0
      ? Math.floor((0.75 * size) / SAMPLES)
      : Math.floor(((k + offset) * size) / SAMPLES);
  row(
    `updateMessage in ${n(timed)}, indexed`,
    "sqlite file",
    `${SAMPLES} updates in ${n(size)}`,
    async (dir) => {
      const { db, session } = await indexed(dir);
      const updates = repeated(SAMPLES, (k) => {
        const i = at(k, 0.5);
        return session.updateMessage({
          ...message(i),
          parts: [{ type: "text", text: `${sentence(i)} zqupdated${k}` }],
        });
      });
      await updates.warm();
      return { measure: updates.measure, teardown: () => db.close() };
    },
  );
  row(
    `deleteMessages (one) in ${n(timed)}, indexed`,
    "sqlite file",
    `${SAMPLES} deletes in ${n(size)}`,
    async (dir) => {
      const { db, session } = await indexed(dir);
      const deletes = repeated(SAMPLES, (k) =>
        session.deleteMessages([`m${at(k, 0.25)}`]),
      );
      await deletes.warm();
      return { measure: deletes.measure, teardown: () => db.close() };
    },
  );
}
const FORK_DEPTH = 1_000;
row(
  "fork at depth 10,000",
  "sqlite file",
  `3 forks at ${n(FORK_DEPTH)}`,
  async (dir) => {
    const db = openSqlite(join(dir, "fork.db"));
    const manager = SessionManager.create(db);
    const source = await manager.create("source");
    await build(manager.getSession(source.id), 0, FORK_DEPTH);
    const forks = repeated(3, (k) =>
      manager.fork(source.id, `m${FORK_DEPTH - 1}`, `fork ${k}`),
    );
    await forks.warm();
    return { measure: forks.measure, teardown: () => db.close() };
  },
);
const ALL = 1_000;
row(
  "appendAll 10,000 in one call",
  "sqlite file",
  `appendAll of ${n(ALL)}`,
  async (dir) => {
    const db = openSqlite(join(dir, "append-all.db"));
    const session = Session.create(db).forSession("all");
    const batch = Array.from({ length: ALL }, (_, i) => message(i));
    await session.getLatestLeaf();
    return {
      measure: () => session.appendAll(batch),
      teardown: () => db.close(),
    };
  },
);

/** The rows, without their code: id, workload and backend (the timing row's), counted. */
export const instructionRows = rows.map(
  ({ id, workload, backend, counted }) => ({ id, workload, backend, counted }),
);

// `node bench/instruction-rows.mjs <id>`: one row, its measured part between the markers.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const chosen = rows.find((entry) => entry.id === Number(process.argv[2]));
  if (!chosen) {
    console.error(`instruction-rows: no row ${process.argv[2]}`);
    process.exit(2);
  }
  const dir = mkdtempSync(join(tmpdir(), "arbor-instr-"));
  try {
    const state = await chosen.setup(dir);
    // A whole-heap collection just before the window, its sweeping finished: without it,
    // whether a collection falls inside a short window depends on what each build allocated
    // during setup, and one collection moves a row by 10-20%. `gc()` alone leaves the sweeping of
    // the pages it freed to be done lazily, inside the window, by an amount that differed by 5%
    // between two runs of one build; `queryObjects` collects everything and then walks the heap,
    // which first completes the sweeping.
    queryObjects(Object, { format: "count" });
    loadavg(); // callgrind --zero-before=uv_loadavg
    await state.measure();
    uptime(); // callgrind --dump-before=uv_uptime
    await state.teardown?.();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
