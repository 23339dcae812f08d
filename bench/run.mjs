// `npm run bench`: speed figures for the message store, measured side by side in one run.
// Not a test: it prints a table (and writes .bench/results.json) for docs/benchmarks.md.
// `node bench/run.mjs --own` runs Arbor's own workloads only (sections 1-4 and the write
// workloads: no reference implementations, ceilings or charts), which is what
// bench/compare-builds.mjs runs against two builds.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  applyPostgresSchema,
  InMemorySessionProvider,
  PostgresSessionProvider,
  Session,
} from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import { runAgents032 } from "./agents-032.mjs";
import { writeChartsFrom } from "./charts.mjs";
import { runGetHistoryMemory } from "./getHistory-memory.mjs";
import { runHistoryMemory } from "./history-memory.mjs";
import { runIndexSize } from "./index-size.mjs";
import { runPostgresCeiling } from "./postgres-ceiling.mjs";
import { runRawCeiling } from "./raw-ceiling.mjs";
import { runReference } from "./reference.mjs";
import { runScale } from "./scale.mjs";
import { throwawayDatabase } from "./standalone.mjs";
import { insertPostgresChain, message, sentence } from "./workload.mjs";
import { runWriteWorkloads } from "./write-workloads.mjs";

const OWN_ONLY = process.argv.includes("--own");
const dir = join(process.cwd(), ".bench");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });

const rows = [];
const record = (workload, backend, value, unit, note = "") => {
  rows.push({ workload, backend, value, unit, note });
  console.log(
    `${workload.padEnd(38)} ${backend.padEnd(14)} ${format(value).padStart(10)} ${unit} ${note}`,
  );
};
const format = (value) =>
  value >= 100 ? Math.round(value).toString() : value.toFixed(2);

async function appendRun(backend, session, count) {
  const chunk = count / 10;
  const rates = [];
  for (let c = 0; c < 10; c++) {
    const start = performance.now();
    for (let i = c * chunk; i < (c + 1) * chunk; i++)
      await session.appendMessage(message(i));
    rates.push(chunk / ((performance.now() - start) / 1000));
  }
  const total = count / rates.reduce((sum, rate) => sum + chunk / rate, 0);
  record(
    `append ${count.toLocaleString("en")}`,
    backend,
    total,
    "msg/s",
    `first 10%: ${Math.round(rates[0])}, last 10%: ${Math.round(rates[9])} (last/first ${(rates[9] / rates[0]).toFixed(2)})`,
  );
}

function writeResults() {
  writeFileSync(
    join(dir, "results.json"),
    JSON.stringify(
      { at: new Date().toISOString(), node: process.version, rows },
      null,
      2,
    ),
  );
}

function time(fn) {
  const start = performance.now();
  const result = fn();
  return result instanceof Promise
    ? result.then((value) => ({ ms: performance.now() - start, value }))
    : { ms: performance.now() - start, value: result };
}

async function median(runs, fn) {
  const times = [];
  let value;
  for (let i = 0; i < runs; i++) {
    const result = await time(fn);
    times.push(result.ms);
    value = result.value;
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)], value };
}

// 1. Appends.
{
  const file = join(dir, "append.db");
  const db = openSqlite(file);
  await appendRun(
    "sqlite file",
    Session.create(db).forSession("bench"),
    10_000,
  );
  db.close();
  await appendRun(
    "in-memory",
    Session.create(new InMemorySessionProvider()),
    10_000,
  );

  // With auto-compaction configured every insert checks the token estimate; the branch estimate
  // is kept incrementally, so the check must not grow with the history (compare first/last 10%).
  const neverCompact = async () => null;
  const compactDb = openSqlite(join(dir, "append-compact.db"));
  await appendRun(
    "sqlite + compactAfter",
    Session.create(compactDb)
      .forSession("bench")
      .onCompaction(neverCompact)
      .compactAfter(Number.MAX_SAFE_INTEGER),
    10_000,
  );
  compactDb.close();
  await appendRun(
    "memory + compactAfter",
    Session.create(new InMemorySessionProvider())
      .onCompaction(neverCompact)
      .compactAfter(Number.MAX_SAFE_INTEGER),
    10_000,
  );
}

// 2. getHistory by depth, warm and cold (cold = a new handle and Session over the same file).
for (const depth of [1_000, 10_000, 100_000]) {
  const file = join(dir, `depth-${depth}.db`);
  const db = openSqlite(file);
  const session = Session.create(db).forSession("deep");
  for (let i = 0; i < depth; i++) await session.appendMessage(message(i));
  const warm = await median(5, () => session.getHistory());
  record(
    `getHistory depth ${depth.toLocaleString("en")}, warm`,
    "sqlite file",
    warm.ms,
    "ms",
    `returned ${warm.value.length.toLocaleString("en")} messages`,
  );
  // An agent loop: each turn appends, then reads the whole branch again.
  let next = depth;
  const turn = await median(5, async () => {
    await session.appendMessage(message(next++));
    return session.getHistory();
  });
  record(
    `append + getHistory at depth ${depth.toLocaleString("en")}`,
    "sqlite file",
    turn.ms,
    "ms",
    "one turn of an agent loop",
  );
  // Uncached: a fresh Session and handle for every read (no path cache, statements prepared anew).
  const fresh = await median(3, async () => {
    const handle = openSqlite(file);
    const history = await Session.create(handle)
      .forSession("deep")
      .getHistory();
    handle.close();
    return history;
  });
  record(
    `getHistory depth ${depth.toLocaleString("en")}, uncached`,
    "sqlite file",
    fresh.ms,
    "ms",
    "new handle each read",
  );
  db.close();
  const coldDb = openSqlite(file);
  const cold = await time(() =>
    Session.create(coldDb).forSession("deep").getHistory(),
  );
  record(
    `getHistory depth ${depth.toLocaleString("en")}, cold`,
    "sqlite file",
    cold.ms,
    "ms",
    `returned ${cold.value.length.toLocaleString("en")} messages`,
  );
  coldDb.close();
}

// 3. Search over 50,000 messages.
const expected = (query) => {
  const terms = query.split(" ");
  let count = 0;
  for (let i = 0; i < 50_000; i++) {
    const words = new Set(sentence(i).split(" "));
    if (terms.every((term) => words.has(term))) count++;
  }
  return count;
};
{
  const db = openSqlite(join(dir, "search.db"));
  const session = Session.create(db).forSession("search");
  for (let i = 0; i < 50_000; i++) await session.appendMessage(message(i));
  // Appends do not index; the first search indexes what was appended since the last one.
  const catchUp = await time(() => session.search("deploy", { limit: 20 }));
  record(
    "first search after 50,000 appends",
    "sqlite file",
    catchUp.ms,
    "ms",
    "includes indexing the 50,000 new messages once",
  );
  const memory = Session.create(new InMemorySessionProvider());
  for (let i = 0; i < 50_000; i++) await memory.appendMessage(message(i));
  for (const [label, query] of [
    ["one term", "deploy"],
    ["two terms", "deploy friday"],
  ]) {
    for (const [backend, target] of [
      ["sqlite file", session],
      ["in-memory", memory],
    ]) {
      const result = await median(5, () => target.search(query, { limit: 20 }));
      const all = await target.search(query, { limit: 1_000_000 });
      record(
        `search 50,000, ${label}`,
        backend,
        result.ms,
        "ms",
        `limit 20; unlimited: found ${all.length} of ${expected(query)} matching`,
      );
    }
  }
  db.close();
}

// 4. PostgreSQL (ARBOR_TEST_PG_URL): appends with one writer and with 8 concurrent writers on
// distinct sessions (one pg.Pool), and getHistory at depth 10,000, on a throwaway database.
if (process.env.ARBOR_TEST_PG_URL) {
  await postgresBench(process.env.ARBOR_TEST_PG_URL);
} else {
  console.log(
    "postgres: skipped (set ARBOR_TEST_PG_URL, e.g. postgres://postgres@127.0.0.1:5432/postgres)",
  );
}

async function postgresBench(serverUrl) {
  const { pool, drop } = await throwawayDatabase(serverUrl, "arbor_bench");
  try {
    await applyPostgresSchema(pool);
    await appendRun(
      "postgres pool",
      Session.create(new PostgresSessionProvider(pool, "bench")),
      2_000,
    );

    const writers = 8;
    const each = 500;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        const session = Session.create(
          new PostgresSessionProvider(pool, `writer-${w}`),
        );
        for (let i = 0; i < each; i++) await session.appendMessage(message(i));
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    record(
      `append ${writers}×${each}, ${writers} sessions`,
      "postgres pool",
      (writers * each) / seconds,
      "msg/s",
      `total over ${writers} concurrent writers`,
    );

    // A 10,000-deep chain inserted in one statement, then read through the provider.
    const depth = 10_000;
    await insertPostgresChain(pool, depth);
    const deep = Session.create(new PostgresSessionProvider(pool, "deep"));
    const warm = await median(5, () => deep.getHistory());
    record(
      `getHistory depth ${depth.toLocaleString("en")}, warm`,
      "postgres pool",
      warm.ms,
      "ms",
      `returned ${warm.value.length.toLocaleString("en")} messages`,
    );
    const recent = await median(5, () => deep.getRecentHistory(64_000));
    record(
      `getRecentHistory 64 KB of depth ${depth.toLocaleString("en")}`,
      "postgres pool",
      recent.ms,
      "ms",
      `returned ${recent.value.messages.length} messages`,
    );
  } finally {
    await drop();
  }
}

if (OWN_ONLY) {
  // updateMessage / deleteMessages at 100 to 100,000 messages, fork at 10,000, appendAll.
  await runWriteWorkloads(dir, record);
  writeResults();
  process.exit(0);
}

// 5. Peak memory of a 100,000-message read: the whole path against streamed windows.
await runHistoryMemory(dir, record);

// 6. Side by side with the reference implementation (agents@0.22.0).
await runReference(dir, record);

// 7. Side by side with agents@0.32.0, both in Durable Objects of one workerd.
await runAgents032(dir, record);

// Scale: 10,000 sessions × 100 messages on SQLite and PostgreSQL (list, search, getHistory, size).
await runScale(dir, record);

// The PostgreSQL raw-INSERT ceiling against Arbor's append, 1 and 8 writers.
await runPostgresCeiling(dir, record);

// The raw better-sqlite3 ceiling of append and getHistory against Arbor, side by side.
await runRawCeiling(dir, record);

// updateMessage / deleteMessages at 100 to 100,000 messages, fork at 10,000, appendAll.
await runWriteWorkloads(dir, record);

// Peak RSS of getHistory() at 10,000 × 2 KB against agents@0.22.0, and of history().
await runGetHistoryMemory(dir, record);

// What tool calls cost the text index, with tool outputs off and on (SQLite and PostgreSQL).
await runIndexSize(dir, record);

writeResults();

// Charts of this run's rows (docs/benchmarks/*.svg), last.
writeChartsFrom([join(dir, "results.json")]);
