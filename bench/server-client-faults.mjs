// Faults that come from clients, against one `arbor serve` process on a SQLite file (the store
// plays no part in them): part of `npm run bench:server` (its fault runs), or alone with
// `node bench/server-client-faults.mjs` after `npm run build`. Loopback only, about 15 s.
//
// 1. Trickling uploads past the timeout: TRICKLES (100) POSTs whose body arrives one byte every
//    100 ms and never completes, held past the request timeout (1 s here), while a normal client
//    keeps creating and listing sessions; then normal requests at once. Every upload must answer
//    408 BODY_TIMEOUT, the normal client must be served throughout and after, /ready stays 200.
// 2. SIGTERM with keep-alive clients: KEEP_ALIVE (16) clients, each on one kept-alive
//    connection, POST messages back to back; SIGTERM halfway. Every request must be answered
//    (201, or 503 SHUTTING_DOWN with `Connection: close`) or refused (ECONNREFUSED: the server no
//    longer listens), never reset; every acknowledged write is read back from the file.
// The assertions live in tests (test/server/request-slots.test.ts,
// test/cli/graceful-shutdown.test.ts, test/cli/serve.int.test.ts); this prints the counts.
import { rmSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import { openSqlite } from "arbor-memory/sqlite";
import { startServe as serve } from "./serve-process.mjs";

const TRICKLES = Number(process.env.ARBOR_BENCH_TRICKLES ?? 100);
const KEEP_ALIVE = Number(process.env.ARBOR_BENCH_KEEP_ALIVE ?? 16);
const TIMEOUT_MS = 1_000;

/** Both runs; prints their tables and returns their figures. */
export async function clientFaultRuns() {
  const trickling = await trickleRun();
  const sigterm = await sigtermRun();
  console.log("\nclient faults: one `arbor serve` on SQLite\n");
  console.log(
    "| Run | the faulty requests | normal requests meanwhile | p50 / p99 ms | normal requests after | /ready after |",
  );
  console.log("|---|---|---|---|---|---|");
  console.log(
    `| ${TRICKLES} uploads trickling past the ${TIMEOUT_MS / 1000} s timeout | ${list(trickling.uploads)} | ${list(trickling.during)} | ${trickling.p50.toFixed(1)} / ${trickling.p99.toFixed(1)} | ${list(trickling.after)} | ${trickling.ready} |`,
  );
  console.log(
    `| SIGTERM with ${KEEP_ALIVE} keep-alive clients writing | ${list(sigterm.ends)} (how each client's last request ended) | ${list(sigterm.answers)} | - | acknowledged ${sigterm.acknowledged}, lost ${sigterm.lost} | - |`,
  );
  return { trickling, sigterm };
}

/** Run 1: trickling uploads past the timeout, beside a normal client. */
async function trickleRun() {
  const file = join(tmpdir(), `arbor-bench-trickle-${process.pid}.db`);
  const server = await serve([
    "--db",
    file,
    "--request-timeout",
    String(TIMEOUT_MS),
  ]);
  try {
    // Warm: the first requests load the routes' code.
    for (let index = 0; index < 5; index++) {
      await request(server.port, "GET", "/v1/sessions?limit=5");
      await request(server.port, "POST", "/v1/sessions", { name: "Warm" });
    }
    const uploads = Array.from({ length: TRICKLES }, () =>
      trickle(server.port),
    );
    const during = {};
    const latencies = [];
    let stop = false;
    const normal = (async () => {
      for (let index = 0; !stop; index++) {
        const start = performance.now();
        const answer =
          index % 2
            ? await request(server.port, "GET", "/v1/sessions?limit=5")
            : await request(server.port, "POST", "/v1/sessions", {
                name: `Normal ${index}`,
              });
        latencies.push(performance.now() - start);
        count(during, answer.status);
        await delay(20);
      }
    })();
    const answered = await Promise.all(uploads);
    stop = true;
    await normal;
    const after = {};
    const last = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        request(server.port, "POST", "/v1/sessions", {
          name: `After ${index}`,
        }),
      ),
    );
    for (const answer of last) count(after, answer.status);
    const ready = (await request(server.port, "GET", "/ready")).status;
    const statuses = {};
    for (const status of answered) count(statuses, status);
    latencies.sort((a, b) => a - b);
    return {
      uploads: statuses,
      during,
      after,
      ready,
      p50: latencies[Math.floor(latencies.length / 2)] ?? 0,
      p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
    };
  } finally {
    await server.stop();
    for (const suffix of ["", "-wal", "-shm"])
      rmSync(file + suffix, { force: true });
  }
}

/** Run 2: keep-alive clients writing back to back through a SIGTERM. */
async function sigtermRun() {
  const file = join(tmpdir(), `arbor-bench-sigterm-${process.pid}.db`);
  const server = await serve(["--db", file]);
  const { body } = await request(server.port, "POST", "/v1/sessions", {
    name: "Through SIGTERM",
  });
  const sessionId = JSON.parse(body).id;
  const acknowledged = [];
  const answers = {};
  const ends = {};
  const client = async (lane) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let turn = 0; ; turn++) {
        const id = `k${lane}-${turn}`;
        let outcome;
        try {
          const answer = await request(
            server.port,
            "POST",
            `/v1/sessions/${sessionId}/messages`,
            {
              message: {
                id,
                role: "user",
                parts: [{ type: "text", text: id }],
              },
              parentId: null,
            },
            agent,
          );
          outcome =
            answer.status === 503
              ? `503 ${JSON.parse(answer.body).error.code}`
              : String(answer.status);
          if (answer.status === 201) acknowledged.push(id);
        } catch (error) {
          outcome = error.code ?? String(error);
        }
        count(answers, outcome);
        if (outcome !== "201") return count(ends, outcome);
      }
    } finally {
      agent.destroy();
    }
  };
  const clients = Array.from({ length: KEEP_ALIVE }, (_, lane) => client(lane));
  await delay(2_000);
  server.child.kill("SIGTERM");
  await Promise.all(clients);
  await server.exited;
  const database = openSqlite(file);
  let lost = 0;
  try {
    const stored = new Set(
      database.sql`SELECT id FROM assistant_messages WHERE session_id = ${sessionId}`.map(
        (row) => row.id,
      ),
    );
    lost = acknowledged.filter((id) => !stored.has(id)).length;
  } finally {
    database.close();
    for (const suffix of ["", "-wal", "-shm"])
      rmSync(file + suffix, { force: true });
  }
  return { answers, ends, acknowledged: acknowledged.length, lost };
}

// --- Helpers ---

/** A POST whose body trickles and never completes: the answer's status, or 0 for none. */
function trickle(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = "";
    let drip;
    const done = (status) => {
      clearInterval(drip);
      socket.destroy();
      resolve(status);
    };
    socket.on("error", () => done(0));
    socket.on("close", () => done(0));
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      const status = /^HTTP\/1\.1 (\d+)/.exec(received)?.[1];
      const code = /"code":"([A-Z_]+)"/.exec(received)?.[1];
      if (status && code) done(`${status} ${code}`);
    });
    socket.once("connect", () => {
      socket.write(
        `POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name":"`,
      );
      drip = setInterval(() => socket.write("a"), 100);
    });
  });
}

/** One request (JSON in, text out), on `agent` or a new connection. */
function request(port, method, path, json, agent = false) {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent,
        headers: json ? { "Content-Type": "application/json" } : {},
      },
      (response) => {
        let body = "";
        response.on("data", (chunk) => (body += chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode, body }),
        );
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(json ? JSON.stringify(json) : undefined);
  });
}

function count(counts, key) {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** `{ 201: 40, "503 SHUTTING_DOWN": 3 }` as "40 × 201, 3 × 503 SHUTTING_DOWN". */
function list(counts) {
  return (
    Object.entries(counts)
      .map(([key, n]) => `${n} × ${key}`)
      .join(", ") || "0"
  );
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href)
  await clientFaultRuns();
