// `npm run bench:server`: the HTTP server under load, one process on a SQLite file beside one and
// two processes over one PostgreSQL (taking turns: one, two, two, one, so the machine's drift
// weighs on both alike), then the workload of an independent review at 8, 32 and 128 clients
// (bench/server-throughput.mjs), then a fault run. Loopback only, bounded in time (about
// 8 minutes with the defaults, 5 without the fault runs). Not a test: the figures go in docs/benchmarks.md and
// docs/reliability.md; the fault runs that assert are tests (test/server/storage-outage.int.test.ts,
// test/server/process-kill-postgres.int.test.ts, test/cli/graceful-shutdown.test.ts).
//
// The workload is the one a scale-out review measured: `ARBOR_BENCH_CLIENTS` concurrent clients (default 32)
// over 200 sessions of 4 turns, each request picked at random: 60% appends (POST a message with
// its own id), 25% history reads, 10% searches in the session, 5% list pages. Each run lasts
// `ARBOR_BENCH_SECONDS` (default 15) after a warm-up. Per route: requests, p50 / p95 / p99 ms; per run:
// requests/s, and the server processes' CPU time per request (their own counters, from
// /proc/<pid>/stat, over the measured seconds), beside the load generator's own (this process).
//
// The fault runs: two processes over PostgreSQL under the same load; halfway through, one is
// killed (SIGKILL), or stopped (SIGTERM), or the database is cut off for 3 seconds (through a
// forwarder in front of it), or PostgreSQL is restarted (a private cluster of the run's own,
// scripts/private-postgres-cluster.mjs). A client whose request gets no answer or a 5xx retries it on the
// next live process (after `Retry-After`), a POST with the same message id (the idempotent rule:
// same id and body answer 200). Afterwards every acknowledged write is read back from the
// database, and nothing may be stored that no answer acknowledged: nothing lost, nothing
// duplicated. Meanwhile a subscriber per watched session (`WATCHED` of them) streams its
// `/events`; when its process goes away or the stream breaks it reconnects to a live one with
// `Last-Event-ID`, and afterwards every acknowledged append of its session must have reached it
// exactly once: no event missed, none twice. Last, the idempotency checks of
// bench/server-idempotency-faults.mjs (requests with one Idempotency-Key at once on both
// processes, answers dropped and retried).
//
// Before the fault runs, the workload of an independent review (bench/server-throughput.mjs,
// about 3 minutes): clients that create sessions, append with explicit parents, read histories,
// list and search, honouring Retry-After, at 8, 32 and 128 clients; SQLite, one PostgreSQL
// process and two in alternating turns; requests/s, p50/p99, the share answered 503, and every
// acknowledged append read back.
//
// Then the faults that come from clients (bench/server-client-faults.mjs, about 15 s): 100
// uploads trickling past the request timeout beside a normal client, and SIGTERM with
// keep-alive clients writing (answered or refused, never reset; nothing acknowledged lost).
// Last, slow readers of a large answer (bench/server-slow-clients.mjs, on PostgreSQL and SQLite,
// about a minute): the normal client's p99 beside 500 of them.
//
//   node bench/server-load.mjs   (after `npm run build`; ARBOR_TEST_PG_URL, default
//   postgres://postgres@127.0.0.1:5432/postgres; ARBOR_BENCH_SECONDS, ARBOR_BENCH_CLIENTS;
//   ARBOR_BENCH_FAULTS=0 for the throughput runs alone; ARBOR_BENCH_THROUGHPUT=0 without the
//   review's workload, ARBOR_BENCH_CONCURRENCY, ARBOR_BENCH_TURN_SECONDS,
//   ARBOR_BENCH_HELD_CONCURRENCY, ARBOR_BENCH_ROUNDS and ARBOR_BENCH_JSON for it (see
//   bench/server-throughput.mjs); ARBOR_BENCH_SERVER_CPU, default 0.25,
//   the CPU budget of each server in the scale-out pair, 0 to skip that pair)
//
// One more PostgreSQL run has its commits not flushed one by one (`synchronous_commit=off`), the
// durability closest to the SQLite run's (`synchronous=NORMAL` in WAL mode flushes at
// checkpoints, not per commit): the difference between the two PostgreSQL rows is what the flush
// per commit costs on the machine's disk.
//
// The scale-out pair: one and two processes over one PostgreSQL again, each server held to
// `ARBOR_BENCH_SERVER_CPU` of a core by a cgroup CPU quota of its own (as a container's CPU limit
// holds it). Without a budget, on a machine whose few cores also run PostgreSQL and the clients, a
// second server only competes with them for the same cores, and the run measures the machine, not
// the servers. With a budget each server has its own share, as each would on its own machine, so
// the pair shows what a second process adds. It needs a writable cgroup CPU controller (v1 or v2,
// as root); without one the pair is reported as skipped.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import http from "node:http";
import net from "node:net";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { SessionManager, applyPostgresSchema } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import { startServe as serve, stopAll } from "./serve-process.mjs";
import { postgresStore, throwawayDatabase } from "./standalone.mjs";
import {
  idempotencyFaults,
  reportIdempotency,
} from "./server-idempotency-faults.mjs";
import { startPrivateCluster } from "../scripts/private-postgres-cluster.mjs";
import { clientFaultRuns } from "./server-client-faults.mjs";
import { cpuBudget, cpuTicks, TICKS_PER_SECOND } from "./serve-process.mjs";
import {
  reportThroughput,
  throughputRuns,
  throughputSettings,
} from "./server-throughput.mjs";

const PG =
  process.env.ARBOR_TEST_PG_URL ||
  "postgres://postgres@127.0.0.1:5432/postgres";
const SECONDS = Number(process.env.ARBOR_BENCH_SECONDS ?? 15);
const CLIENTS = Number(process.env.ARBOR_BENCH_CLIENTS ?? 32);
/** `ARBOR_BENCH_FAULTS=0` skips the fault runs (throughput only). */
const FAULTS = process.env.ARBOR_BENCH_FAULTS !== "0";
const SESSIONS = 200;
const WORDS = ["budget", "travel", "deploy", "garden", "invoice", "kitchen"];
const WARM_UP_MS = 2_000;
const OUTAGE_MS = 3_000;
/** Sessions whose `/events` a subscriber follows through each fault run. */
const WATCHED = 4;
/** Each server's CPU budget in the scale-out pair, in cores; 0 skips the pair. */
const SERVER_CPU = Number(process.env.ARBOR_BENCH_SERVER_CPU ?? 0.25);
/** The clients' connections: kept alive, one per client at most per server. */
const CLIENT_AGENT = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });

const results = [];

// 1. One process on a SQLite file.
{
  const file = join(tmpdir(), `arbor-bench-server-${process.pid}.db`);
  const manager = SessionManager.create(openSqlite(file));
  const ids = await seed(manager);
  const servers = [await serve(["--db", file])];
  results.push({
    name: "SQLite, 1 process",
    ...(await load(servers, ids)),
  });
  await stopAll(servers);
  for (const suffix of ["", "-wal", "-shm"])
    rmSync(file + suffix, { force: true });
}

// 2. One and two processes over one PostgreSQL, taking turns (see `pairRun`).
results.push(...(await pairRun("PostgreSQL")));

// 2b. One process whose commits are not flushed to disk one by one (`synchronous_commit=off`):
// the durability of SQLite's `synchronous=NORMAL` in WAL mode, which the SQLite run has, closer
// than PostgreSQL's default flush per commit (a crash of the machine can lose the last commits;
// a crash of PostgreSQL itself can too, where SQLite's page cache would keep them). What the
// flush per commit costs on this disk, not a setting Arbor makes.
results.push(
  await postgresRun(
    1,
    "PostgreSQL, 1 process, synchronous_commit=off",
    (url) => {
      const unflushed = new URL(url);
      unflushed.searchParams.set("options", "-c synchronous_commit=off");
      return unflushed.toString();
    },
  ),
);

// 2c. The scale-out pair: one and two processes again, each held to SERVER_CPU of a core.
const budget = SERVER_CPU > 0 ? cpuBudget(SERVER_CPU) : null;
if (SERVER_CPU > 0 && !budget)
  console.log(
    "scale-out pair skipped: no writable cgroup CPU controller (needs root and cgroup v1 or v2)",
  );
if (budget)
  results.push(
    ...(await pairRun("PostgreSQL", `, ${SERVER_CPU} core each`, (pid) =>
      budget.hold(pid),
    )),
  );
budget?.remove();

// 2d. The independent review's workload at several concurrencies, SQLite, PG1 and PG2 taking
// turns, clients honouring Retry-After (bench/server-throughput.mjs); `ARBOR_BENCH_THROUGHPUT=0`
// skips it.
const throughput =
  process.env.ARBOR_BENCH_THROUGHPUT === "0"
    ? null
    : await throughputRuns({ pg: PG, serve, stopAll, ...throughputSettings() });

// 3. The fault runs, each two processes under the same load: one killed (SIGKILL) halfway, one
// stopped (SIGTERM) halfway, the database cut for 3 seconds halfway (every connection of both
// processes goes through a forwarder the run controls), and PostgreSQL itself restarted halfway
// (`pg_ctl restart -m fast` of a private cluster the run starts on its own port). The shared
// server is never restarted.
for (const fault of FAULTS ? ["SIGKILL", "SIGTERM", "outage", "restart"] : []) {
  const cluster = fault === "restart" ? await startPrivateCluster() : null;
  const database = await throwawayDatabase(
    cluster ? cluster.url : PG,
    "arbor_bench_server_fault",
  );
  await applyPostgresSchema(database.pool);
  const ids = await seed(
    SessionManager.create(await postgresStore(database.pool)),
  );
  const forwarder =
    fault === "outage" ? await startForwarder(database.url) : null;
  const url = forwarder ? forwarder.url : database.url;
  const servers = [
    await serve(["--postgres", url]),
    await serve(["--postgres", url]),
  ];
  const subscribers = ids
    .slice(0, WATCHED)
    .map((sessionId) => subscribe(servers, sessionId));
  await Promise.all(subscribers.map((subscriber) => subscriber.ready));
  const halfway = WARM_UP_MS + (SECONDS * 1000) / 2;
  const timers = [
    setTimeout(() => {
      if (fault === "outage") forwarder.cut();
      else if (fault === "restart") void cluster.restart();
      else servers[0].child.kill(fault);
    }, halfway),
    ...(forwarder
      ? [setTimeout(() => void forwarder.restore(), halfway + OUTAGE_MS)]
      : []),
  ];
  const run = await load(servers, ids, { retry: true });
  for (const timer of timers) clearTimeout(timer);
  const events = await settle(subscribers, run.acknowledged);
  results.push({
    name: {
      SIGKILL: "PostgreSQL, 2 processes, one killed (SIGKILL) halfway",
      SIGTERM: "PostgreSQL, 2 processes, one stopped (SIGTERM) halfway",
      outage: `PostgreSQL, 2 processes, database cut for ${OUTAGE_MS / 1000} s halfway`,
      restart: "PostgreSQL, 2 processes, PostgreSQL restarted halfway",
    }[fault],
    ...run,
    ...(await verify(database.pool, ids, run.acknowledged)),
    events,
  });
  await stopAll(servers);
  await forwarder?.close();
  await database.drop();
  cluster?.stop();
}

report(results);
if (throughput && !reportThroughput(throughput)) process.exitCode = 1;

// 4. Idempotency under races and dropped answers: one key sent at once to two processes, an
// answer dropped and retried with and without a key (bench/server-idempotency-faults.mjs).
if (
  FAULTS &&
  !reportIdempotency(await idempotencyFaults({ pg: PG, serve, stopAll }))
)
  process.exitCode = 1;

// 5. Faults that come from clients (bench/server-client-faults.mjs): uploads trickling past the
// request timeout, and SIGTERM with keep-alive clients writing.
if (FAULTS) await clientFaultRuns();

// 6. Slow readers of a large answer (bench/server-slow-clients.mjs, in a process of its own,
// about 30 s per backend): 500 clients that ask for a 3 MB history and never read it, beside a
// normal client; its p99 beside them over its p99 alone, the peak RSS, the work done for readers
// gone. On PostgreSQL and on SQLite.
if (FAULTS)
  for (const backend of ["postgres", "sqlite"]) {
    console.log(`\nslow readers of a large history, ${backend}:`);
    spawnSync(process.execPath, ["bench/server-slow-clients.mjs"], {
      stdio: "inherit",
      env: { ...process.env, BACKEND: backend, ARBOR_TEST_PG_URL: PG },
    });
  }

// --- The runs ---

/**
 * `processes` servers over a new PostgreSQL database under the load, then every acknowledged
 * write checked; `connect` turns the database's URL into the servers' one, `hold` is given each
 * server's pid.
 */
async function postgresRun(processes, name, connect = (url) => url, hold) {
  const database = await throwawayDatabase(PG, "arbor_bench_server");
  await applyPostgresSchema(database.pool);
  const ids = await seed(
    SessionManager.create(await postgresStore(database.pool)),
  );
  const servers = [];
  for (let index = 0; index < processes; index++) {
    const server = await serve(["--postgres", connect(database.url)]);
    hold?.(server.child.pid);
    servers.push(server);
  }
  const run = await load(servers, ids);
  const checked = await verify(database.pool, ids, run.acknowledged);
  await stopAll(servers);
  await database.drop();
  return { name, ...run, ...checked };
}

/**
 * One and two processes over one new PostgreSQL database, taking turns: one, two, two, one, a
 * whole run each. A drift of the machine's speed during the run (other tenants, a busy
 * neighbour) then weighs on both alike; run one after the other, the ratio of two processes to
 * one swung 0.94-1.17x between runs of one build. Each turn loads 200 new sessions, seeded as
 * for a run of its own, so every turn's histories grow from the same start as the SQLite run's.
 * Two servers run throughout; in a turn of one, the second gets no requests. Every acknowledged
 * write is checked at the end. `hold` is given each server's pid.
 */
async function pairRun(label, suffix = "", hold) {
  const database = await throwawayDatabase(PG, "arbor_bench_server");
  await applyPostgresSchema(database.pool);
  const manager = SessionManager.create(await postgresStore(database.pool));
  const servers = [];
  for (let index = 0; index < 2; index++) {
    const server = await serve(["--postgres", database.url]);
    hold?.(server.child.pid);
    servers.push(server);
  }
  const turns = { 1: [], 2: [] };
  const everyId = [];
  for (const processes of [1, 2, 2, 1]) {
    const ids = await seed(manager);
    everyId.push(...ids);
    turns[processes].push(await load(servers.slice(0, processes), ids));
  }
  const runs = [1, 2].map((processes) => ({
    name: `${label}, ${plural(processes)}${suffix}`,
    ...merge(turns[processes], everyId),
  }));
  const acknowledged = merge([...turns[1], ...turns[2]], everyId).acknowledged;
  const checked = await verify(database.pool, everyId, acknowledged);
  await stopAll(servers);
  await database.drop();
  return runs.map((run) => ({ ...run, ...checked }));
}

function plural(processes) {
  return `${processes} process${processes > 1 ? "es" : ""}`;
}

// --- The load ---

/** 200 sessions of 4 turns; returns their ids. */
async function seed(manager) {
  const ids = [];
  for (let index = 0; index < SESSIONS; index++) {
    const info = await manager.create(`Load session ${index}`);
    const session = manager.getSession(info.id);
    for (let turn = 0; turn < 4; turn++)
      await session.appendMessage({
        id: `seed${turn}`,
        role: turn % 2 ? "assistant" : "user",
        parts: [
          { type: "text", text: `Seed turn ${turn} about ${WORDS[turn]}` },
        ],
      });
    ids.push(info.id);
  }
  return ids;
}

/**
 * `CLIENTS` loops against `servers` (round robin per request) for the warm-up and `SECONDS`.
 * With `retry`, a request that fails (no answer, or a 5xx) is sent again to the next process.
 */
async function load(servers, ids, { retry = false } = {}) {
  const routes = new Map();
  const acknowledged = new Map(ids.map((id) => [id, new Set()]));
  const errors = new Map();
  const retried = new Map();
  let measuring = false;
  let stop = false;
  let next = 0;
  let sequence = 0;
  const live = () => servers.filter((server) => server.alive);
  // With `retry`, a request is sent again (to the next live process) after no answer or a 5xx,
  // waiting as `Retry-After` says or 200 ms, for up to 20 attempts: a database outage answers 503.
  const send = async (make) => {
    for (let attempt = 0; attempt < (retry ? 20 : 1); attempt++) {
      const pool = live();
      if (pool.length === 0) throw new Error("no server left");
      const server = pool[next++ % pool.length];
      let wait = 200;
      try {
        const response = await request(server.url + make.path, make.init);
        if (response.status < 500 || !retry) return response.status;
        retried.set(response.status, (retried.get(response.status) ?? 0) + 1);
        const after = Number(response.retryAfter);
        if (after > 0) wait = Math.min(after * 1000, 1000);
      } catch (error) {
        if (!retry) throw error;
        retried.set(0, (retried.get(0) ?? 0) + 1);
      }
      await delay(wait);
    }
    return 599;
  };
  const client = async (number) => {
    while (!stop) {
      const sessionId = ids[Math.floor(Math.random() * ids.length)];
      const pick = Math.random();
      const base = `/v1/sessions/${sessionId}`;
      let route;
      let make;
      let messageId = null;
      if (pick < 0.6) {
        route = "POST message";
        messageId = `c${number}-${sequence++}`;
        make = {
          path: `${base}/messages`,
          init: {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              message: {
                id: messageId,
                role: "user",
                parts: [
                  {
                    type: "text",
                    text: `Load turn ${messageId} about ${WORDS[sequence % WORDS.length]}`,
                  },
                ],
              },
            }),
          },
        };
      } else if (pick < 0.85) {
        route = "GET history";
        make = { path: `${base}/history` };
      } else if (pick < 0.95) {
        route = "GET search";
        make = {
          path: `${base}/search?q=${WORDS[Math.floor(Math.random() * WORDS.length)]}`,
        };
      } else {
        route = "GET list";
        make = { path: "/v1/sessions?limit=50" };
      }
      const started = performance.now();
      let status;
      try {
        status = await send(make);
      } catch {
        status = 0;
      }
      const ms = performance.now() - started;
      if (messageId !== null && (status === 201 || status === 200))
        acknowledged.get(sessionId).add(messageId);
      if (!measuring) continue;
      const entry = routes.get(route) ?? { times: [], statuses: {} };
      entry.times.push(ms);
      entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
      routes.set(route, entry);
      if (status === 0 || status >= 500)
        errors.set(status, (errors.get(status) ?? 0) + 1);
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, number) =>
    client(number),
  );
  await delay(WARM_UP_MS);
  const cpuBefore = servers.map(cpuTicks);
  const clientCpuBefore = process.cpuUsage();
  measuring = true;
  const started = performance.now();
  await delay(SECONDS * 1000);
  measuring = false;
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = servers.map(cpuTicks);
  const clientCpu = process.cpuUsage(clientCpuBefore);
  stop = true;
  await Promise.all(clients);
  const requests = [...routes.values()].reduce(
    (sum, entry) => sum + entry.times.length,
    0,
  );
  const cpuSeconds =
    servers.reduce(
      (sum, _, at) => sum + ((cpuAfter[at] ?? cpuBefore[at]) - cpuBefore[at]),
      0,
    ) / TICKS_PER_SECOND;
  return summarize({
    seconds,
    cpuMs: cpuSeconds * 1000,
    clientCpuMs: (clientCpu.user + clientCpu.system) / 1000,
    routes,
    failed: errors,
    retried,
    acknowledged,
  });
}

/** The figures of a load, or of several loads of one configuration taken together (`merge`). */
function summarize({
  seconds,
  cpuMs,
  clientCpuMs,
  routes,
  failed,
  retried,
  acknowledged,
}) {
  const requests = [...routes.values()].reduce(
    (sum, entry) => sum + entry.times.length,
    0,
  );
  return {
    requests,
    perSecond: requests / seconds,
    cpuMsPerRequest: cpuMs / Math.max(requests, 1),
    clientCpuMsPerRequest: clientCpuMs / Math.max(requests, 1),
    routes: Object.fromEntries(
      [...routes].map(([route, { times, statuses }]) => [
        route,
        {
          count: times.length,
          p50: percentile(times, 0.5),
          p95: percentile(times, 0.95),
          p99: percentile(times, 0.99),
          statuses,
        },
      ]),
    ),
    failed: Object.fromEntries(failed),
    retried: Object.fromEntries(retried),
    acknowledged,
    raw: { seconds, cpuMs, clientCpuMs, routes, failed, retried },
  };
}

/** Loads of one configuration as one: their seconds, CPU, requests and latencies together. */
function merge(parts, ids) {
  const routes = new Map();
  const failed = new Map();
  const retried = new Map();
  const acknowledged = new Map(ids.map((id) => [id, new Set()]));
  const add = (into, key, count) => into.set(key, (into.get(key) ?? 0) + count);
  for (const { raw, acknowledged: acked } of parts) {
    for (const [route, { times, statuses }] of raw.routes) {
      const entry = routes.get(route) ?? { times: [], statuses: {} };
      for (const ms of times) entry.times.push(ms);
      for (const [status, count] of Object.entries(statuses))
        entry.statuses[status] = (entry.statuses[status] ?? 0) + count;
      routes.set(route, entry);
    }
    for (const [status, count] of raw.failed) add(failed, status, count);
    for (const [status, count] of raw.retried) add(retried, status, count);
    for (const [id, messages] of acked)
      for (const message of messages) acknowledged.get(id)?.add(message);
  }
  const sum = (key) => parts.reduce((total, part) => total + part.raw[key], 0);
  return summarize({
    seconds: sum("seconds"),
    cpuMs: sum("cpuMs"),
    clientCpuMs: sum("clientCpuMs"),
    routes,
    failed,
    retried,
    acknowledged,
  });
}

/** Every acknowledged message is stored, and no session holds more than it acknowledged. */
async function verify(pool, ids, acknowledged) {
  const { rows } = await pool.query(
    "SELECT session_id, id FROM assistant_messages WHERE id NOT LIKE 'seed%'",
  );
  const stored = new Map(ids.map((id) => [id, new Set()]));
  let duplicates = 0;
  for (const row of rows) {
    const set = stored.get(row.session_id);
    if (set.has(row.id)) duplicates++;
    set.add(row.id);
  }
  let lost = 0;
  let unacknowledged = 0;
  for (const id of ids) {
    for (const messageId of acknowledged.get(id))
      if (!stored.get(id).has(messageId)) lost++;
    for (const messageId of stored.get(id))
      if (!acknowledged.get(id).has(messageId)) unacknowledged++;
  }
  return { lost, duplicates, unacknowledged };
}

// --- Subscribers ---

/**
 * Follows `/v1/sessions/{sessionId}/events` on the live servers, from before the load starts:
 * every append's message ids, in the order received. A stream that breaks (its process killed or
 * stopped, its database cut) is opened again on the next live process with `Last-Event-ID`, the
 * last id received. `ready` settles once the first stream is open.
 */
function subscribe(servers, sessionId) {
  const seen = [];
  let lastId = null;
  let resets = 0;
  let reconnects = -1;
  let stopped = false;
  let controller = null;
  let next = 0;
  let opened;
  const ready = new Promise((resolve) => (opened = resolve));
  const stream = async () => {
    while (!stopped) {
      const live = servers.filter((server) => server.alive);
      const server = live[next++ % Math.max(live.length, 1)];
      controller = new AbortController();
      try {
        if (!server) throw new Error("no server left");
        const response = await fetch(
          `${server.url}/v1/sessions/${sessionId}/events`,
          {
            headers: lastId === null ? {} : { "Last-Event-ID": lastId },
            signal: controller.signal,
          },
        );
        if (response.status !== 200) throw new Error(`${response.status}`);
        reconnects++;
        const decoder = new TextDecoder();
        let buffered = "";
        for await (const chunk of response.body) {
          buffered += decoder.decode(chunk, { stream: true });
          let end;
          while ((end = buffered.indexOf("\n\n")) >= 0) {
            const block = buffered.slice(0, end);
            buffered = buffered.slice(end + 2);
            const field = (name) =>
              block
                .split("\n")
                .find((line) => line.startsWith(`${name}: `))
                ?.slice(name.length + 2);
            const id = field("id");
            if (id !== undefined) lastId = id;
            if (field("event") === "ready") opened();
            if (field("event") !== "change") continue;
            const change = JSON.parse(field("data"));
            if (change.type === "reset") resets++;
            if (change.type === "append") seen.push(...change.ids);
          }
        }
      } catch {
        // The stream broke or never opened: reconnect below.
      }
      if (!stopped) await delay(200);
    }
  };
  const done = stream();
  return {
    sessionId,
    ready,
    seen,
    stats: () => ({ resets, reconnects: Math.max(reconnects, 0) }),
    async stop() {
      stopped = true;
      controller?.abort();
      await done;
    },
  };
}

/**
 * Once the subscribers have caught up (every acknowledged append of their session received, or
 * 5 s), stops them and counts what an acknowledged write's event did: missed, or received twice.
 */
async function settle(subscribers, acknowledged) {
  const deadline = performance.now() + 5_000;
  const expectedOf = (subscriber) =>
    acknowledged.get(subscriber.sessionId) ?? new Set();
  while (
    performance.now() < deadline &&
    subscribers.some((subscriber) =>
      [...expectedOf(subscriber)].some((id) => !subscriber.seen.includes(id)),
    )
  )
    await delay(100);
  let missed = 0;
  let twice = 0;
  let received = 0;
  let reconnects = 0;
  let resets = 0;
  for (const subscriber of subscribers) {
    await subscriber.stop();
    const counts = new Map();
    for (const id of subscriber.seen) counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const id of expectedOf(subscriber)) {
      if (!counts.has(id)) missed++;
      else if (counts.get(id) > 1) twice++;
    }
    received += subscriber.seen.length;
    reconnects += subscriber.stats().reconnects;
    resets += subscriber.stats().resets;
  }
  return { missed, twice, received, reconnects, resets };
}

// --- Processes ---

/**
 * A TCP forwarder in front of PostgreSQL: `cut()` drops every connection and refuses new ones (a
 * stopped database), `restore()` forwards again on the same port.
 */
async function startForwarder(databaseUrl) {
  const target = new URL(databaseUrl);
  const sockets = new Set();
  let server = null;
  let port = 0;
  const forwarder = {
    url: "",
    async restore() {
      server = net.createServer((client) => {
        const upstream = net.connect(
          Number(target.port || 5432),
          target.hostname,
        );
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on("error", () => socket.destroy());
          socket.on("close", () => sockets.delete(socket));
        }
        client.pipe(upstream);
        upstream.pipe(client);
        client.on("close", () => upstream.destroy());
        upstream.on("close", () => client.destroy());
      });
      await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
      port = server.address().port;
    },
    cut() {
      server?.close();
      server = null;
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      forwarder.cut();
    },
  };
  await forwarder.restore();
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  forwarder.url = url.toString();
  return forwarder;
}

// --- Figures ---

/** `{ 503: 4, 0: 2 }` as "4 × 503, 2 × no answer", or "0". */
function statusList(counts = {}) {
  return (
    Object.entries(counts)
      .map(
        ([status, count]) =>
          `${count} × ${status === "0" ? "no answer" : status}`,
      )
      .join(", ") || "0"
  );
}

function percentile(values, share) {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
}

/**
 * One request over a keep-alive connection of `CLIENT_AGENT`: its status and `Retry-After`, the
 * body read to the end. node:http rather than `fetch`: the load generator shares the machine's
 * cores with the servers and PostgreSQL, and `fetch` costs it about twice the CPU per request.
 */
function request(url, init = {}) {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      url,
      {
        method: init.method ?? "GET",
        headers: init.headers,
        agent: CLIENT_AGENT,
      },
      (response) => {
        response.on("data", () => {});
        response.on("end", () =>
          resolve({
            status: response.statusCode,
            retryAfter: response.headers["retry-after"],
          }),
        );
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(init.body);
  });
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function report(runs) {
  const sqlite = runs[0];
  console.log(
    `\nserver-load: ${CLIENTS} clients, ${SECONDS} s per run, 200 sessions; 60% POST message, 25% history, 10% search, 5% list\n`,
  );
  console.log(
    "| Run | requests/s | vs SQLite | CPU ms / request | vs SQLite | load generator CPU ms / request | lost | duplicates | stored, not acknowledged | retried (no answer or 5xx) | failed (after retries) |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const run of runs)
    console.log(
      `| ${run.name} | ${run.perSecond.toFixed(0)} | ${(run.perSecond / sqlite.perSecond).toFixed(2)}x | ${run.cpuMsPerRequest.toFixed(2)} | ${(run.cpuMsPerRequest / sqlite.cpuMsPerRequest).toFixed(2)}x | ${run.clientCpuMsPerRequest.toFixed(2)} | ${run.lost ?? "-"} | ${run.duplicates ?? "-"} | ${run.unacknowledged ?? "-"} | ${statusList(run.retried)} | ${statusList(run.failed)} |`,
    );
  console.log("\np50 / p95 / p99 ms per route\n");
  const names = [...new Set(runs.flatMap((run) => Object.keys(run.routes)))];
  console.log(`| Run | ${names.join(" | ")} |`);
  console.log(`|---|${names.map(() => "---").join("|")}|`);
  for (const run of runs)
    console.log(
      `| ${run.name} | ${names
        .map((name) => {
          const route = run.routes[name];
          return route
            ? `${route.p50.toFixed(1)} / ${route.p95.toFixed(1)} / ${route.p99.toFixed(1)}`
            : "-";
        })
        .join(" | ")} |`,
    );
  const watched = runs.filter((run) => run.events);
  if (watched.length > 0) {
    console.log(
      `\nsubscribers: one per watched session (${WATCHED}), reconnecting with Last-Event-ID\n`,
    );
    console.log(
      "| Run | append events received | acknowledged appends missed | received twice | reconnects | resets |",
    );
    console.log("|---|---|---|---|---|---|");
    for (const run of watched)
      console.log(
        `| ${run.name} | ${run.events.received} | ${run.events.missed} | ${run.events.twice} | ${run.events.reconnects} | ${run.events.resets} |`,
      );
  }
  const two = runs.find((run) => run.name === "PostgreSQL, 2 processes");
  const one = runs.find((run) => run.name === "PostgreSQL, 1 process");
  if (one && two)
    console.log(
      `\ntwo processes over one PostgreSQL: ${(two.perSecond / one.perSecond).toFixed(2)}x one process`,
    );
  const held = runs.filter((run) => run.name.endsWith(" core each"));
  if (held.length === 2)
    console.log(
      `two processes over one PostgreSQL, ${SERVER_CPU} core each: ${(held[1].perSecond / held[0].perSecond).toFixed(2)}x one process`,
    );
}
