// Shared by the bench sections that also run alone (`node bench/<file>.mjs`): timing helpers, and
// a `record` that prints rows like bench/run.mjs and writes them to .bench/<name>.json.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import pg from "pg";

/** Milliseconds `fn` took (awaited when it returns a promise), with its value. */
export async function time(fn) {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/** The median time of `runs` calls of `fn(i)`, with the last value. */
export async function median(runs, fn) {
  const times = [];
  let value;
  for (let i = 0; i < runs; i++) {
    const result = await time(() => fn(i));
    times.push(result.ms);
    value = result.value;
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)], value };
}

/** The section's own folder under the run's scratch folder, so file names never collide. */
export function scratch(dir, name) {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  return folder;
}

/** `file` after removing it and its WAL files, so a rerun starts from an empty database. */
export function freshFile(file) {
  for (const suffix of ["", "-wal", "-shm"])
    rmSync(file + suffix, { force: true });
  return file;
}

/** The row printer of bench/run.mjs. */
export function printRow(workload, backend, value, unit, note = "") {
  const shown =
    value >= 100 ? Math.round(value).toString() : Number(value).toFixed(2);
  console.log(
    `${workload.padEnd(38)} ${backend.padEnd(14)} ${shown.padStart(10)} ${unit} ${note}`,
  );
}

/**
 * Runs `section(dir, record)` when `moduleUrl` is the script node was started with: rows are
 * printed and written to .bench/<name>.json (run.mjs's .bench/results.json is left alone).
 */
export async function runAlone(moduleUrl, name, section) {
  if (process.argv[1] !== fileURLToPath(moduleUrl)) return;
  const dir = join(process.cwd(), ".bench");
  mkdirSync(dir, { recursive: true });
  const rows = [];
  await section(dir, (workload, backend, value, unit, note = "") => {
    rows.push({ workload, backend, value, unit, note });
    printRow(workload, backend, value, unit, note);
  });
  writeFileSync(
    join(process.cwd(), ".bench", `${name}.json`),
    JSON.stringify(
      { at: new Date().toISOString(), node: process.version, rows },
      null,
      2,
    ),
  );
}

/**
 * A throwaway database on the PostgreSQL server of `serverUrl`, named `<prefix>_<time>`, with a
 * pg Pool on it (`poolOptions` added); `drop()` ends the pool and drops the database.
 */
export async function throwawayDatabase(serverUrl, prefix, poolOptions = {}) {
  const name = `${prefix}_${Date.now().toString(36)}`;
  await adminQuery(
    serverUrl,
    `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`,
  );
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({
    connectionString: url.toString(),
    max: 10,
    ...poolOptions,
  });
  // Connections still closing when the database is dropped report an error; it is expected.
  pool.on("error", () => {});
  return {
    pool,
    /** The database's connection URL (for a process of its own). */
    url: url.toString(),
    async drop() {
      await pool.end();
      await adminQuery(
        serverUrl,
        `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`,
      );
    },
  };
}

async function adminQuery(serverUrl, sql) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * What a bench hands to `SessionManager.create()` for a PostgreSQL client: `postgresBackend(client)`,
 * the form every build with `arbor-memory/postgres`'s `postgresBackend` takes (newer builds refuse
 * the client itself), or the client itself in an older build, which took it. compare-builds runs
 * these scripts on both builds, so they use only what both export.
 */
export async function postgresStore(client) {
  const entry = await import("arbor-memory/postgres").catch(() => ({}));
  return typeof entry.postgresBackend === "function"
    ? entry.postgresBackend(client)
    : client;
}
