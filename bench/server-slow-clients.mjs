// `node bench/server-slow-clients.mjs` (after `npm run build`; ARBOR_TEST_PG_URL or
// postgres://postgres@127.0.0.1:5432/postgres): one `arbor serve` process, then SLOW clients that
// each ask for a large answer and never read it, while one normal client keeps reading small
// histories. First the normal client runs alone (its unloaded latency), then beside the slow
// clients; the figure that matters is its p99 beside them over its p99 alone (target: at most
// 2×). Prints the server's idle and peak RSS, the slow requests' statuses, and the CPU the server
// spent in the two seconds after the slow clients left (work for readers that are gone).
// Loopback only, bounded in time. Not a test: the figures go in the report, not in assertions.
//
// Environment: BACKEND=postgres|sqlite (default postgres), SLOW (default 500), SLOW_READ=
// history|sessions (a 3 MB history, the default, or a page of 100 sessions), HOLD_MS (the loaded
// phase, default 8000), ALONE_MS (the unloaded phase, default 3000).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { SessionManager, applyPostgresSchema } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import { startServe } from "./serve-process.mjs";
import { postgresStore, throwawayDatabase } from "./standalone.mjs";

const SERVER =
  process.env.ARBOR_TEST_PG_URL ||
  "postgres://postgres@127.0.0.1:5432/postgres";
const BACKEND = process.env.BACKEND ?? "postgres";
const SLOW = Number(process.env.SLOW ?? 500);
const SLOW_READ = process.env.SLOW_READ ?? "history";
const SESSIONS = 50;
const HOLD_MS = Number(process.env.HOLD_MS ?? 8_000);
const ALONE_MS = Number(process.env.ALONE_MS ?? 3_000);
/** The large history: 300 messages of 10 KB, about 3 MB of JSON. */
const LARGE_MESSAGES = 300;
const LARGE_TEXT = 10_000;

let database;
let dir;
let store;
let serveArgs;
if (BACKEND === "sqlite") {
  dir = mkdtempSync(join(tmpdir(), "arbor-bench-slow-"));
  const file = join(dir, "arbor.db");
  store = openSqlite(file);
  serveArgs = ["--db", file];
} else {
  database = await throwawayDatabase(SERVER, "arbor_bench_slow");
  await applyPostgresSchema(database.pool);
  store = await postgresStore(database.pool);
  serveArgs = ["--postgres", database.url];
}
const manager = SessionManager.create(store);
const ids = [];
for (let index = 0; index < SESSIONS; index++) {
  const info = await manager.create(
    `Session ${index} ${"about something ".repeat(8)}`,
  );
  const session = manager.getSession(info.id);
  for (let turn = 0; turn < 4; turn++)
    await session.appendMessage({
      id: `m${turn}`,
      role: turn % 2 ? "assistant" : "user",
      parts: [{ type: "text", text: `Turn ${turn} `.repeat(40) }],
    });
  ids.push(info.id);
}
const large = (await manager.create("Large")).id;
const largeSession = manager.getSession(large);
for (let index = 0; index < LARGE_MESSAGES; index++)
  await largeSession.appendMessage({
    id: `l${index}`,
    role: index % 2 ? "assistant" : "user",
    parts: [{ type: "text", text: `${index} `.padEnd(LARGE_TEXT, "words ") }],
  });
if (BACKEND === "sqlite") store.close();

const { child, port } = await startServe(serveArgs);
const status = () => readFileSync(`/proc/${child.pid}/status`, "utf8");
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(status())[1]) / 1024;
/** The server's CPU seconds so far (user + system, from /proc/<pid>/stat). */
const cpuSeconds = () => {
  const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8")
    .split(") ")[1]
    .split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const base = `http://127.0.0.1:${port}`;
for (let index = 0; index < 20; index++)
  await fetch(`${base}/v1/sessions/${ids[index % SESSIONS]}/history`).then(
    (r) => r.text(),
  );
const idle = rss();

/** The normal client: small histories one after another for `ms`; latencies and statuses. */
async function normalClient(ms) {
  const latencies = [];
  const timeline = []; // [ms since the phase began, latency] of every request
  const statuses = {};
  const began = performance.now();
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const start = performance.now();
    const answer = await fetch(
      `${base}/v1/sessions/${ids[latencies.length % SESSIONS]}/history`,
    );
    await answer.arrayBuffer();
    latencies.push(performance.now() - start);
    timeline.push([start - began, performance.now() - start]);
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  latencies.sort((a, b) => a - b);
  const pct = (p) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
  // The slowest few and when they were sent: an arrival burst shows as slow requests early on.
  const slowest = timeline
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(
      ([at, took]) => `${Math.round(took)} ms at ${(at / 1000).toFixed(2)} s`,
    );
  return {
    statuses,
    served: latencies.length,
    p50: pct(0.5),
    p99: pct(0.99),
    slowest,
  };
}

const alone = await normalClient(ALONE_MS);

// The slow clients, in a worker thread of their own: a raw socket each, the request sent, the
// answer never read. In a thread of their own so that their 500 connects and first reads do not
// delay the normal client's event loop (the figure is the server's latency, not this process's).
const slowPath =
  SLOW_READ === "sessions"
    ? "/v1/sessions?limit=100"
    : `/v1/sessions/${large}/history`;
const slowClients = new Worker(
  String.raw`
  const net = require("node:net");
  const { parentPort, workerData } = require("node:worker_threads");
  const { port, path, count } = workerData;
  const statuses = {};
  const sockets = [];
  for (let index = 0; index < count; index++) {
    const socket = net.connect(port, "127.0.0.1");
    socket.on("error", () => {});
    socket.once("connect", () => {
      socket.write("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n");
      socket.once("data", (chunk) => {
        const code = /^HTTP\/1\.1 (\d+)/.exec(chunk.toString("latin1"))?.[1] ?? "?";
        statuses[code] = (statuses[code] ?? 0) + 1;
        socket.pause();
      });
    });
    sockets.push(socket);
  }
  parentPort.once("message", () => {
    for (const socket of sockets) socket.destroy();
    parentPort.postMessage(statuses);
  });
  `,
  { eval: true, workerData: { port, path: slowPath, count: SLOW } },
);

let peak = idle;
const sampler = setInterval(() => (peak = Math.max(peak, rss())), 100);
const loaded = await normalClient(HOLD_MS);
clearInterval(sampler);
slowClients.postMessage("leave");
const statuses = await new Promise((resolve) =>
  slowClients.once("message", resolve),
);
await slowClients.terminate();
const leftAt = cpuSeconds();
await new Promise((resolve) => setTimeout(resolve, 2_000));
const cpuAfterLeaving = cpuSeconds() - leftAt;
const after = rss();
const ms = (value) => Number(value.toFixed(1));
console.log(
  JSON.stringify(
    {
      backend: BACKEND,
      slowClients: SLOW,
      slowRead:
        SLOW_READ === "sessions" ? "page of 100 sessions" : "3 MB history",
      seconds: { alone: ALONE_MS / 1000, loaded: HOLD_MS / 1000 },
      rssMiB: {
        idle: Math.round(idle),
        peak: Math.round(peak),
        afterRelease: Math.round(after),
      },
      slowStatuses: statuses,
      serverCpuSecondsAfterSlowClientsLeft: cpuAfterLeaving,
      normalClient: {
        alone: { ...alone, p50: ms(alone.p50), p99: ms(alone.p99) },
        besideSlowClients: {
          ...loaded,
          p50: ms(loaded.p50),
          p99: ms(loaded.p99),
        },
        p99Ratio: Number((loaded.p99 / alone.p99).toFixed(2)),
        target: "p99 beside the slow clients at most 2× its p99 alone",
      },
    },
    null,
    2,
  ),
);
child.kill("SIGTERM");
await new Promise((resolve) => child.once("exit", resolve));
if (database) await database.drop();
if (dir) rmSync(dir, { recursive: true, force: true });
