// The throughput run of `npm run bench:server` (bench/server-load.mjs runs it before its fault
// runs; `node bench/server-throughput.mjs` runs it alone, after `npm run build`): the workload of
// an independent review, at several concurrencies, with one process on a SQLite file, one process
// over PostgreSQL and two processes over that same PostgreSQL database.
//
// Each client owns the sessions it creates and loops without pause: 5% of its requests create a
// session (and its first request always does), 50% append a message to one of its last four
// sessions with an explicit `parentId` (the last message it appended there) and its own id, 25%
// read that session's history, 10% read a page of the session list and 10% search the session.
// Clients honour `Retry-After`: a 503 is counted, then the same request is sent again once the
// delay it names has passed (an append keeps its id, so a retry never writes twice).
//
// Per concurrency (`ARBOR_BENCH_CONCURRENCY`, default 8,32,128) the three configurations take
// alternating turns of equal length (`ARBOR_BENCH_TURN_SECONDS`, default 5, after a 1-second
// warm-up): SQLite, PG1, PG2, PG2, PG1, SQLite, so a drift of the machine's speed weighs on all
// alike. Every server runs throughout; a turn sends its requests to its own configuration's
// servers only (round robin per request over two). The figures per configuration and
// concurrency: requests answered per second (503s not counted), p50 and p99 of every answered
// request, the share of requests answered 503 (and how many of those came after 4 s or more:
// requests that waited out the queue deadline rather than being refused at once), the p99 of whole operations (their waits for
// `Retry-After` included), the CPU per request of the servers, of the PostgreSQL backends their
// pools hold (from /proc, by the pids pg_stat_activity gives for the run's database) and of the
// load generator (this process), how busy the machine's cores were (/proc/stat: on a machine
// whose cores are all busy, a second process can only take CPU from the first, the database and
// the clients), and the ratios PG1/SQLite and PG2/PG1 of the same run. At the end every acknowledged append is read back (`GET …/tree` of each session)
// and must be there under the parent it was sent with: nothing lost.
//
// With `ARBOR_BENCH_SERVER_CPU` (default 0.25; 0 skips it) and a writable cgroup CPU controller,
// the highest concurrency runs once more over PostgreSQL with each server held to that share of a
// core (turns PG1, PG2, PG2, PG1): what a second process adds when it has CPU of its own.
// `ARBOR_BENCH_HELD_CONCURRENCY` names the concurrencies of those held turns instead (say
// 8,32,128 for all three; `ARBOR_BENCH_CONCURRENCY=none` then runs the held turns alone).
//
// `ARBOR_BENCH_ROUNDS` (default 1) repeats the whole sequence, turns alternating as above in every
// round; with more than one, each round's table is printed with the load average (`uptime`) at
// its start and end, then the median over the rounds of each figure and of each ratio (a ratio
// taken within its round, then the median): on a machine shared with other work, one round's
// ratio can be the noise of a moment. `ARBOR_BENCH_JSON` names a file for the figures as JSON.
// `ARBOR_BENCH_CONFIGS` keeps some of SQLite, PG1 and PG2 only (PG1 alone, say, to profile one
// server under `ARBOR_BENCH_SERVE_NODE_ARGS=--cpu-prof`: its profile is then of PG1's turns only).
import http from "node:http";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { applyPostgresSchema } from "arbor-memory/session";
import { throwawayDatabase } from "./standalone.mjs";
import { cpuBudget, cpuTicks, TICKS_PER_SECOND } from "./serve-process.mjs";

const WORDS = ["budget", "travel", "deploy", "garden", "invoice", "kitchen"];
const WARM_UP_MS = 1_000;
/** A client's operations go to its last few sessions, so histories grow as a chat's do. */
const RECENT_SESSIONS = 4;

/**
 * Runs the workload; `serve(args)` starts `arbor serve` (`{ url, child }`), `stopAll(servers)`
 * stops them. Answers `{ rounds, checked, turnSeconds }`: per round, a row per configuration and
 * concurrency, the held pair's rows (or `null`) and the load average at its start and end; and
 * the read-back's counts.
 */
export async function throughputRuns({
  pg,
  serve,
  stopAll,
  concurrencies = [8, 32, 128],
  turnSeconds = 5,
  serverCpu = 0.25,
  heldConcurrencies = concurrencies.length ? [Math.max(...concurrencies)] : [],
  rounds = 1,
  only = ["SQLite", "PG1", "PG2"],
}) {
  const file = join(tmpdir(), `arbor-bench-throughput-${process.pid}.db`);
  const database = await throwawayDatabase(pg, "arbor_bench_throughput");
  await applyPostgresSchema(database.pool);
  // Every server started is stopped at the end, also when a later one fails to start.
  const started = [];
  const start = async (args) => {
    const server = await serve(args);
    started.push(server);
    return server;
  };
  // Every acknowledged append and session, per store, read back at the end.
  const acknowledged = { SQLite: new Map(), PostgreSQL: new Map() };
  const storeOf = (config) => (config === "SQLite" ? "SQLite" : "PostgreSQL");
  const results = [];
  let checked;
  const budget =
    serverCpu > 0 && heldConcurrencies.length ? cpuBudget(serverCpu) : null;
  try {
    const stores = {
      SQLite: [await start(["--db", file])],
      PostgreSQL: [
        await start(["--postgres", database.url]),
        await start(["--postgres", database.url]),
      ],
    };
    const configs = {
      SQLite: stores.SQLite,
      PG1: stores.PostgreSQL.slice(0, 1),
      PG2: stores.PostgreSQL,
    };
    // The held pair: two more servers over the same database, each in a cgroup of its own.
    const pair = [];
    if (budget)
      for (let index = 0; index < 2; index++) {
        const server = await start(["--postgres", database.url]);
        budget.hold(server.child.pid);
        pair.push(server);
      }
    for (let round = 1; round <= rounds; round++) {
      const loadBefore = loadavg()[0];
      const rows = [];
      for (const clients of concurrencies) {
        const turns = { SQLite: [], PG1: [], PG2: [] };
        for (const config of ["SQLite", "PG1", "PG2", "PG2", "PG1", "SQLite"])
          if (only.includes(config))
            turns[config].push(
              await turn(
                configs[config],
                clients,
                turnSeconds,
                acknowledged[storeOf(config)],
                config === "SQLite" ? null : database,
              ),
            );
        for (const config of Object.keys(turns))
          if (turns[config].length)
            rows.push({ config, clients, ...merge(turns[config]) });
      }
      let held = null;
      if (budget) {
        held = { serverCpu, rows: [] };
        for (const clients of heldConcurrencies) {
          const turns = { 1: [], 2: [] };
          for (const processes of [1, 2, 2, 1])
            turns[processes].push(
              await turn(
                pair.slice(0, processes),
                clients,
                turnSeconds,
                acknowledged.PostgreSQL,
                database,
              ),
            );
          for (const processes of [1, 2])
            held.rows.push({
              config: `PG${processes}, ${serverCpu} core each`,
              clients,
              ...merge(turns[processes]),
            });
        }
      } else if (serverCpu > 0 && heldConcurrencies.length)
        held = { skipped: true, serverCpu };
      results.push({ round, rows, held, load: [loadBefore, loadavg()[0]] });
    }
    checked = {
      SQLite: await readBack(stores.SQLite[0], acknowledged.SQLite),
      PostgreSQL: await readBack(stores.PostgreSQL[0], acknowledged.PostgreSQL),
    };
  } finally {
    await stopAll(started);
    // A cgroup can be removed once its processes have exited (stopAll waits for that).
    budget?.remove();
    await database.drop();
    for (const suffix of ["", "-wal", "-shm"])
      rmSync(file + suffix, { force: true });
  }
  return { rounds: results, checked, turnSeconds };
}

// --- One turn ---

/**
 * `clients` clients against `servers` for a warm-up and `seconds`; the figures of the measured
 * seconds. Acknowledged sessions and appends go into `acknowledged` (session id → Map of message
 * id → the parent it was sent with).
 */
async function turn(servers, clients, seconds, acknowledged, database) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const answered = []; // ms of every answered request (503s included), while measuring
  const operations = []; // ms of every operation, its Retry-After waits included
  const statuses = {};
  let shed = 0;
  let shedLate = 0; // 503s answered after 4 s or more: requests that waited out the queue deadline (5 s)
  let failed = 0;
  let measuring = false;
  let stop = false;
  let next = 0;
  let sequence = 0;
  const prefix = `t${Date.now().toString(36)}`;

  /** Sends until an answer other than 503; each answer timed and counted. */
  const send = async (method, path, body) => {
    for (;;) {
      const server = servers[next++ % servers.length];
      const started = performance.now();
      let response;
      try {
        response = await request(agent, server.url + path, method, body);
      } catch {
        if (measuring) failed++;
        return { status: 0 };
      }
      if (measuring) {
        answered.push(performance.now() - started);
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      }
      if (response.status !== 503) return response;
      if (measuring) {
        shed++;
        if (performance.now() - started >= 4_000) shedLate++;
      }
      // Honour Retry-After (whole seconds); a 503 without it (none is expected) waits 1 s.
      const after = Number(response.retryAfter);
      await delay((after > 0 ? after : 1) * 1000);
      if (stop) return response;
    }
  };

  const client = async (number) => {
    const mine = [];
    while (!stop) {
      const pick = Math.random();
      const started = performance.now();
      let status;
      if (mine.length === 0 || pick < 0.05) {
        const answer = await send("POST", "/v1/sessions", {
          name: `Client ${number} session ${mine.length}`,
        });
        status = answer.status;
        if (status === 201) {
          const id = JSON.parse(answer.text).id;
          mine.push({ id, leaf: null });
          acknowledged.set(id, new Map());
        }
      } else {
        const recent = mine.slice(-RECENT_SESSIONS);
        const session = recent[Math.floor(Math.random() * recent.length)];
        const base = `/v1/sessions/${session.id}`;
        const word = WORDS[Math.floor(Math.random() * WORDS.length)];
        if (pick < 0.55) {
          const id = `${prefix}-${number}-${sequence++}`;
          const parentId = session.leaf;
          status = (
            await send("POST", `${base}/messages`, {
              message: {
                id,
                role: session.leaf === null ? "user" : "assistant",
                parts: [{ type: "text", text: `Turn ${id} about ${word}` }],
              },
              parentId,
            })
          ).status;
          if (status === 201 || status === 200) {
            session.leaf = id;
            acknowledged.get(session.id).set(id, parentId);
          }
        } else if (pick < 0.8) {
          status = (await send("GET", `${base}/history`)).status;
        } else if (pick < 0.9) {
          status = (await send("GET", "/v1/sessions?limit=20")).status;
        } else {
          status = (await send("GET", `${base}/search?q=${word}`)).status;
        }
      }
      if (!measuring) continue;
      operations.push(performance.now() - started);
      if (status !== 200 && status !== 201 && status !== 503) failed++;
    }
  };

  const running = Array.from({ length: clients }, (_, number) =>
    client(number),
  );
  await delay(WARM_UP_MS);
  const cpuBefore = servers.map(cpuTicks);
  const backends = database ? await backendPids(database) : [];
  const backendsBefore = backends.map(processTicks);
  const machineBefore = machineTicks();
  const clientBefore = process.cpuUsage();
  measuring = true;
  const started = performance.now();
  await delay(seconds * 1000);
  measuring = false;
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = servers.map(cpuTicks);
  const backendsAfter = backends.map(processTicks);
  const machineAfter = machineTicks();
  const clientCpu = process.cpuUsage(clientBefore);
  stop = true;
  await Promise.all(running);
  agent.destroy();
  const cpuMs =
    (servers.reduce(
      (sum, _, at) => sum + ((cpuAfter[at] ?? cpuBefore[at]) - cpuBefore[at]),
      0,
    ) /
      TICKS_PER_SECOND) *
    1000;
  return {
    seconds: elapsed,
    answered,
    operations,
    statuses,
    shed,
    shedLate,
    failed,
    cpuMs,
    clientMs: (clientCpu.user + clientCpu.system) / 1000,
    backendMs:
      (backends.reduce(
        (sum, _, at) =>
          sum +
          ((backendsAfter[at] ?? backendsBefore[at]) - backendsBefore[at]),
        0,
      ) /
        TICKS_PER_SECOND) *
      1000,
    busy:
      (machineAfter.busy - machineBefore.busy) /
      Math.max(machineAfter.total - machineBefore.total, 1),
  };
}

/** The pids of the PostgreSQL backends connected to the run's database (the servers' pools). */
async function backendPids(database) {
  const { rows } = await database.pool.query(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
  );
  return rows.map((row) => row.pid);
}

/** utime + stime of a process by pid, in clock ticks; `undefined` once it is gone. */
function processTicks(pid) {
  return cpuTicks({ child: { pid } });
}

/** The machine's busy and total clock ticks, over every core (/proc/stat). */
function machineTicks() {
  const fields = readFileSync("/proc/stat", "utf8")
    .split("\n")[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  // idle and iowait are not busy
  return { busy: total - fields[3] - (fields[4] ?? 0), total };
}

/** Turns of one configuration as one. */
function merge(parts) {
  const seconds = parts.reduce((sum, part) => sum + part.seconds, 0);
  const answered = parts.flatMap((part) => part.answered);
  const operations = parts.flatMap((part) => part.operations);
  const shed = parts.reduce((sum, part) => sum + part.shed, 0);
  const shedLate = parts.reduce((sum, part) => sum + part.shedLate, 0);
  const failed = parts.reduce((sum, part) => sum + part.failed, 0);
  const cpuMs = parts.reduce((sum, part) => sum + part.cpuMs, 0);
  const backendMs = parts.reduce((sum, part) => sum + part.backendMs, 0);
  const clientMs = parts.reduce((sum, part) => sum + part.clientMs, 0);
  const busy =
    parts.reduce((sum, part) => sum + part.busy * part.seconds, 0) / seconds;
  const statuses = {};
  for (const part of parts)
    for (const [status, count] of Object.entries(part.statuses))
      statuses[status] = (statuses[status] ?? 0) + count;
  const served = answered.length - shed;
  return {
    perSecond: served / seconds,
    p50: percentile(answered, 0.5),
    p99: percentile(answered, 0.99),
    shedShare: answered.length ? shed / answered.length : 0,
    shed,
    shedLate,
    failed,
    operationP99: percentile(operations, 0.99),
    cpuMsPerRequest: cpuMs / Math.max(served, 1),
    backendMsPerRequest: backendMs / Math.max(served, 1),
    clientMsPerRequest: clientMs / Math.max(served, 1),
    busy,
    statuses,
  };
}

// --- The read-back ---

/** Every acknowledged session is there, with every acknowledged append under its parent. */
async function readBack(server, acknowledged) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  let sessions = 0;
  let appends = 0;
  let lost = 0;
  let misplaced = 0;
  const ids = [...acknowledged.keys()];
  const check = async () => {
    for (let id = ids.pop(); id !== undefined; id = ids.pop()) {
      const messages = acknowledged.get(id);
      sessions++;
      appends += messages.size;
      const answer = await request(
        agent,
        `${server.url}/v1/sessions/${id}/tree`,
        "GET",
      );
      if (answer.status !== 200) {
        lost += messages.size + 1;
        continue;
      }
      const stored = new Map(
        JSON.parse(answer.text).nodes.map((node) => [node.id, node.parentId]),
      );
      for (const [messageId, parentId] of messages) {
        if (!stored.has(messageId)) lost++;
        else if (stored.get(messageId) !== parentId) misplaced++;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, check));
  agent.destroy();
  return { sessions, appends, lost, misplaced };
}

// --- Figures ---

/** Prints the tables; answers whether nothing was lost or misplaced and no request failed. */
export function reportThroughput({ rounds, checked, turnSeconds }) {
  console.log(
    `\nThroughput: clients that create sessions, append with explicit parents, read histories, list and search; Retry-After honoured; turns of ${turnSeconds} s (SQLite, PG1, PG2, PG2, PG1, SQLite)`,
  );
  for (const { round, rows, held, load } of rounds) {
    console.log(
      `\nRound ${round} of ${rounds.length}, load average ${load[0].toFixed(1)} at its start, ${load[1].toFixed(1)} at its end\n`,
    );
    console.log(
      "| Clients | Run | requests/s | p50 ms | p99 ms | 503 share (after 4 s or more) | operation p99 ms (with Retry-After waits) | server CPU ms / request | PostgreSQL CPU ms / request | load generator CPU ms / request | machine busy | vs SQLite | PG2 vs PG1 | failed |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (const row of withRatios(rows, held))
      console.log(
        `| ${row.clients} | ${row.config} | ${row.perSecond.toFixed(0)} | ${row.p50.toFixed(1)} | ${row.p99.toFixed(1)} | ${(row.shedShare * 100).toFixed(2)}% (${row.shedLate}) | ${row.operationP99.toFixed(0)} | ${row.cpuMsPerRequest.toFixed(2)} | ${row.config === "SQLite" ? "-" : row.backendMsPerRequest.toFixed(2)} | ${row.clientMsPerRequest.toFixed(2)} | ${(row.busy * 100).toFixed(0)}% | ${ratio(row.vsSqlite)} | ${ratio(row.vsOne)} | ${row.failed} |`,
      );
    if (held?.skipped)
      console.log(
        `\nheld pair (${held.serverCpu} core each) skipped: no writable cgroup CPU controller (needs root and cgroup v1 or v2)`,
      );
  }
  if (rounds.length > 1) {
    // Each figure's median over the rounds; a ratio is taken within its round first.
    const loads = rounds.flatMap((round) => round.load);
    console.log(
      `\nMedians of ${rounds.length} rounds (load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}); 503 share and p99 also at their highest\n`,
    );
    console.log(
      "| Clients | Run | requests/s | vs SQLite | PG2 vs PG1 | 503 share (highest) | p99 ms (highest) | server CPU ms / request | PostgreSQL CPU ms / request | machine busy |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|---|");
    const all = rounds.map((round) => withRatios(round.rows, round.held));
    for (const row of all[0]) {
      const same = all
        .map((rows) =>
          rows.find(
            (other) =>
              other.clients === row.clients && other.config === row.config,
          ),
        )
        .filter(Boolean);
      const mid = (pick) => median(same.map(pick));
      const top = (pick) => Math.max(...same.map(pick));
      console.log(
        `| ${row.clients} | ${row.config} | ${mid((r) => r.perSecond).toFixed(0)} | ${ratio(row.vsSqlite && mid((r) => r.vsSqlite))} | ${ratio(row.vsOne && mid((r) => r.vsOne))} | ${(mid((r) => r.shedShare) * 100).toFixed(2)}% (${(top((r) => r.shedShare) * 100).toFixed(2)}%) | ${mid((r) => r.p99).toFixed(0)} (${top((r) => r.p99).toFixed(0)}) | ${mid((r) => r.cpuMsPerRequest).toFixed(2)} | ${row.config === "SQLite" ? "-" : mid((r) => r.backendMsPerRequest).toFixed(2)} | ${(mid((r) => r.busy) * 100).toFixed(0)}% |`,
      );
    }
  }
  console.log(
    "\nRead back at the end (GET …/tree of every acknowledged session):",
  );
  for (const [store, result] of Object.entries(checked))
    console.log(
      `  ${store}: ${result.sessions} sessions, ${result.appends} acknowledged appends; lost ${result.lost}, under another parent ${result.misplaced}`,
    );
  if (process.env.ARBOR_BENCH_JSON)
    writeFileSync(
      process.env.ARBOR_BENCH_JSON,
      JSON.stringify(
        {
          turnSeconds,
          checked,
          rounds: rounds.map((round) => ({
            ...round,
            // the held pair's rows follow the shared ones
            rows: withRatios(round.rows, round.held),
            held: round.held?.skipped ? round.held : undefined,
          })),
        },
        null,
        1,
      ),
    );
  return (
    Object.values(checked).every(
      (result) => result.lost === 0 && result.misplaced === 0,
    ) &&
    rounds.every((round) =>
      [...round.rows, ...(round.held?.rows ?? [])].every(
        (row) => row.failed === 0,
      ),
    )
  );
}

/**
 * A round's rows, the held pair's after them, each with its ratios: PG1 and PG2 against SQLite
 * at the same concurrency, PG2 against PG1 (the held PG2 against the held PG1).
 */
function withRatios(rows, held) {
  const find = (list, clients, config) =>
    list.find((other) => other.clients === clients && other.config === config);
  const shared = rows.map((row) => {
    const sqlite = find(rows, row.clients, "SQLite");
    const one = find(rows, row.clients, "PG1");
    return {
      ...row,
      vsSqlite:
        row.config !== "SQLite" && sqlite
          ? row.perSecond / sqlite.perSecond
          : null,
      vsOne: row.config === "PG2" && one ? row.perSecond / one.perSecond : null,
    };
  });
  const heldRows = (held?.rows ?? []).map((row) => {
    const one = held.rows.find(
      (other) =>
        other.clients === row.clients && other.config.startsWith("PG1"),
    );
    return {
      ...row,
      vsSqlite: null,
      vsOne: row !== one && one ? row.perSecond / one.perSecond : null,
    };
  });
  return [...shared, ...heldRows];
}

function ratio(value) {
  return value ? `${value.toFixed(2)}x` : "-";
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2
    ? sorted[middle]
    : (sorted[middle - 1] + sorted[middle]) / 2;
}

function percentile(values, share) {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
}

// --- HTTP ---

/** One request over `agent`: status, `Retry-After` and the body's text. */
function request(agent, url, method, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const outgoing = http.request(
      url,
      {
        method,
        agent,
        headers:
          payload === undefined ? {} : { "content-type": "application/json" },
      },
      (response) => {
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode,
            retryAfter: response.headers["retry-after"],
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// --- Alone ---

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { startServe: serve, stopAll } = await import("./serve-process.mjs");
  const ok = reportThroughput(
    await throughputRuns({
      pg:
        process.env.ARBOR_TEST_PG_URL ||
        "postgres://postgres@127.0.0.1:5432/postgres",
      serve,
      stopAll,
      ...throughputSettings(),
    }),
  );
  process.exitCode = ok ? 0 : 1;
}

/** The run's settings from the environment (see the header). */
export function throughputSettings(env = process.env) {
  return {
    concurrencies: list(env.ARBOR_BENCH_CONCURRENCY ?? "8,32,128"),
    turnSeconds: Number(env.ARBOR_BENCH_TURN_SECONDS ?? 5),
    serverCpu: Number(env.ARBOR_BENCH_SERVER_CPU ?? 0.25),
    ...(env.ARBOR_BENCH_HELD_CONCURRENCY !== undefined
      ? { heldConcurrencies: list(env.ARBOR_BENCH_HELD_CONCURRENCY) }
      : {}),
    rounds: Math.max(1, Number(env.ARBOR_BENCH_ROUNDS ?? 1) || 1),
    ...(env.ARBOR_BENCH_CONFIGS
      ? { only: env.ARBOR_BENCH_CONFIGS.split(",").map((name) => name.trim()) }
      : {}),
  };
}

/** "8,32,128" as numbers; "none" (or anything without a positive number) as none. */
function list(text) {
  return text
    .split(",")
    .map(Number)
    .filter((value) => value > 0);
}
