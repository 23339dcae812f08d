// `node bench/server-slow-clients.mjs` (after `npm run build`; ARBOR_TEST_PG_URL or
// postgres://postgres@127.0.0.1:5432/postgres): one `arbor serve` process over PostgreSQL, then
// SLOW clients that each ask for a page of sessions and never read the answer, while one normal
// client keeps reading histories. Prints the server's idle and peak RSS, the slow requests'
// statuses, and how many of the normal client's requests were served and how fast. Loopback
// only, bounded in time. Not a test: the figures go in the report, not in assertions.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import net from "node:net";
import { SessionManager, applyPostgresSchema } from "arbor-memory/session";
import { throwawayDatabase } from "./standalone.mjs";

const SERVER =
  process.env.ARBOR_TEST_PG_URL ||
  "postgres://postgres@127.0.0.1:5432/postgres";
const SLOW = Number(process.env.SLOW ?? 500);
const SESSIONS = 200;
const HOLD_MS = Number(process.env.HOLD_MS ?? 15_000);

const database = await throwawayDatabase(SERVER, "arbor_bench_slow");
await applyPostgresSchema(database.pool);
const manager = SessionManager.create(database.pool);
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
const url = new URL(SERVER);
url.pathname = `/${(await database.pool.query("SELECT current_database() AS name")).rows[0].name}`;

const child = spawn(
  process.execPath,
  [
    "dist/cli/main.js",
    "serve",
    "--postgres",
    url.toString(),
    "--port",
    "0",
    "--skip-sample",
  ],
  { stdio: ["ignore", "pipe", "pipe"] },
);
let stderr = "";
child.stderr.on("data", (chunk) => (stderr += chunk));
const port = await new Promise((resolve, reject) => {
  let out = "";
  child.stdout.on("data", (chunk) => {
    out += chunk;
    const match = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
    if (match) resolve(Number(match[1]));
  });
  child.once("exit", (code) =>
    reject(new Error(`serve exited ${code}: ${stderr}`)),
  );
});
const rss = () =>
  Number(
    /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))[1],
  ) / 1024;
const base = `http://127.0.0.1:${port}`;
for (let index = 0; index < 20; index++)
  await fetch(`${base}/v1/sessions`).then((r) => r.text());
const idle = rss();

// The slow clients: a raw socket each, the request sent, the answer never read.
const statuses = {};
const sockets = [];
for (let index = 0; index < SLOW; index++) {
  const socket = net.connect(port, "127.0.0.1");
  socket.on("error", () => {});
  socket.once("connect", () => {
    socket.write(
      `GET /v1/sessions?limit=100 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
    );
    socket.once("data", (chunk) => {
      const status =
        /^HTTP\/1\.1 (\d+)/.exec(chunk.toString("latin1"))?.[1] ?? "?";
      statuses[status] = (statuses[status] ?? 0) + 1;
      socket.pause();
    });
  });
  sockets.push(socket);
}

// The normal client, meanwhile.
let peak = idle;
const latencies = [];
const normal = {};
const until = Date.now() + HOLD_MS;
const sampler = setInterval(() => (peak = Math.max(peak, rss())), 100);
while (Date.now() < until) {
  const start = performance.now();
  const answer = await fetch(
    `${base}/v1/sessions/${ids[latencies.length % SESSIONS]}/history`,
  );
  await answer.arrayBuffer();
  latencies.push(performance.now() - start);
  normal[answer.status] = (normal[answer.status] ?? 0) + 1;
  await new Promise((resolve) => setTimeout(resolve, 20));
}
clearInterval(sampler);
for (const socket of sockets) socket.destroy();
await new Promise((resolve) => setTimeout(resolve, 1_000));
const after = rss();
latencies.sort((a, b) => a - b);
const pct = (p) =>
  latencies[
    Math.min(latencies.length - 1, Math.floor(latencies.length * p))
  ].toFixed(1);
console.log(
  JSON.stringify(
    {
      slowClients: SLOW,
      holdSeconds: HOLD_MS / 1000,
      rssMiB: {
        idle: idle.toFixed(0),
        peak: peak.toFixed(0),
        afterRelease: after.toFixed(0),
      },
      slowStatuses: statuses,
      normalClient: { statuses: normal, p50ms: pct(0.5), p99ms: pct(0.99) },
    },
    null,
    2,
  ),
);
child.kill("SIGTERM");
await new Promise((resolve) => child.once("exit", resolve));
await database.drop();
