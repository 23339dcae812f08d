// The searches of bench/scale.mjs again, on the databases it kept (ARBOR_BENCH_SCALE_KEEP=1), for
// one build or several alternating query by query (so all meet the same machine state), with the
// CPU time of each search beside its wall time: this process's, plus the PostgreSQL backend's
// (read from /proc/<pid>/schedstat, so only with the server on this machine). On a loaded machine
// the wall time mostly measures the wait for a core; the CPU time is what the search costs, and
// about its wall time on an idle machine. Rankings of the builds are compared query by query.
//
//   node bench/scale-searches.mjs sqlite:<file> | postgres:<url> [--rounds 3]
//     [--kinds question,two,one] [dist ...]   (dist folders of builds; default ./dist)
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { scaleQueries } from "./scale.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const [value] = args.splice(at, 2).slice(1);
  return value;
};
const rounds = Number(option("--rounds", "3"));
const kinds = option("--kinds", "question,two,one").split(",");
const [target, ...given] = args;
if (!/^(sqlite|postgres):/.test(target ?? "")) {
  console.error(
    "usage: node bench/scale-searches.mjs sqlite:<file>|postgres:<url> [--rounds N] [--kinds question,two,one] [dist ...]",
  );
  process.exit(2);
}
const dists = (given.length > 0 ? given : ["dist"]).map(
  (dist) => pathToFileURL(resolve(dist)).href,
);
const queries = scaleQueries();
const processNs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) * 1000;
};
const runNs = (pid) =>
  Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);

/** A manager of build `dist` over the target, and its CPU clock in ns. */
async function open(dist) {
  const { SessionManager } = await import(`${dist}/session/index.js`);
  if (target.startsWith("sqlite:")) {
    const { openSqlite } = await import(`${dist}/sqlite/index.js`);
    const db = openSqlite(target.slice("sqlite:".length));
    return {
      manager: SessionManager.create(db),
      cpu: processNs,
      close: () => db.close(),
    };
  }
  // One connection, so its backend does all of the search's work.
  const pool = new pg.Pool({
    connectionString: target.slice("postgres:".length),
    max: 1,
  });
  const {
    rows: [{ pid }],
  } = await pool.query("SELECT pg_backend_pid() AS pid");
  const { postgresBackend } = await import(`${dist}/postgres/index.js`);
  return {
    manager: SessionManager.create(postgresBackend(pool)),
    cpu: () => processNs() + runNs(pid),
    close: () => pool.end(),
  };
}

const builds = [];
for (const dist of dists) builds.push(await open(dist));
const percentile = (times, q) => {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};
const ms = (value) => value.toFixed(2);
for (const kind of kinds) {
  const list = queries[kind];
  // Untimed: statements prepared, statistics read.
  for (const build of builds)
    for (const query of list.slice(0, 5))
      await build.manager.search(query, { limit: 20 });
  const wall = builds.map(() => []);
  const cpu = builds.map(() => []);
  let differ = 0;
  const before = loadavg()[0];
  for (let round = 0; round < rounds; round++) {
    for (const query of list) {
      const order = builds.map((_, at) => at);
      if (round % 2) order.reverse();
      const rankings = [];
      for (const at of order) {
        const cpuStart = builds[at].cpu();
        const start = performance.now();
        const hits = await builds[at].manager.search(query, { limit: 20 });
        wall[at].push(performance.now() - start);
        cpu[at].push((builds[at].cpu() - cpuStart) / 1e6);
        rankings[at] = hits.map((hit) => `${hit.sessionId}/${hit.id}`).join();
      }
      if (rankings.some((ranking) => ranking !== rankings[0])) differ++;
    }
  }
  const columns = builds.map(
    (_, at) =>
      `[${at}] wall ${ms(percentile(wall[at], 0.5))} / ${ms(percentile(wall[at], 0.95))}, CPU ${ms(percentile(cpu[at], 0.5))} / ${ms(percentile(cpu[at], 0.95))}`,
  );
  console.log(
    `${kind}, p50 / p95 ms over ${list.length} × ${rounds}: ${columns.join(" | ")}${builds.length > 1 ? `; rankings differ ${differ}` : ""}; load average ${ms(before)} → ${ms(loadavg()[0])}`,
  );
}
for (const build of builds) await build.close();
