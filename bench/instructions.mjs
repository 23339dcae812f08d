// The instruction-count mode of bench/compare-builds.mjs (`--instructions`): every row of
// `node bench/run.mjs --own` (bench/instruction-rows.mjs says which sizes) run once per build, one
// row per fresh process, under `valgrind --tool=callgrind` of
// `node --predictable --hash-seed=1 --random-seed=1`, one process at a time.
//
// What is counted: the instructions of the row's measured part only, on the process's main
// thread (the library, SQLite, the PostgreSQL client, and V8's compiler and garbage collector,
// which run there under --predictable and --single-threaded-gc). The row's setup (building the
// data, opening handles, warm-up calls) is dropped by callgrind's `--zero-before` at the start
// marker, and the counts up to the end marker are written by `--dump-before`
// (bench/instruction-rows.mjs). Each row collects the whole heap just before its start marker and
// finishes the sweeping, so what a build allocated during setup does not decide whether a
// collection falls inside the window. The PostgreSQL rows count the client process's
// instructions (pg, the library, V8), not the server's. Two runs of one build counted within
// 0.05% of each other on rows of 6 to 7M (getHistory at depth 100, updates); the counts do not
// move with the machine's load. The PostgreSQL rows depend on how replies arrive and repeat
// less closely.
//
// Prints a table (row, before, after, ratio; rows over 5% more instructions flagged), writes
// .bench/compare-instructions.json, and keeps each row's callgrind output in .bench/callgrind/
// (`callgrind_annotate --inclusive=yes <file>` shows where a row's instructions went).
import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

/** The callgrind options that bracket the measured part (see bench/instruction-rows.mjs). */
// --separate-threads: one count per thread, of which the main thread's is kept (see countRow).
const CALLGRIND = [
  "--tool=callgrind",
  "--zero-before=uv_loadavg",
  "--dump-before=uv_uptime",
  "--separate-threads=yes",
];
// --predictable-gc-schedule and --no-memory-reducer: no collection scheduled by the clock.
// --single-threaded-gc: the collector's work (marking, sweeping, scavenges) runs on the main
// thread, where it is counted, and the sweeping that follows that collection is finished before
// the window instead of by helper threads or lazily inside it.
const NODE = [
  "--predictable",
  "--hash-seed=1",
  "--random-seed=1",
  "--single-threaded-gc",
  "--predictable-gc-schedule",
  "--no-memory-reducer",
  "--no-warnings",
];

/**
 * Runs every row once on each build (`{ name, dir }`, the earlier first), the rows of
 * bench/instruction-rows.mjs as `root` has it, and prints and writes the comparison.
 */
export async function compareInstructions(builds, root, only = null) {
  const { instructionRows } = await import(
    join(root, "bench", "instruction-rows.mjs")
  );
  const rows = instructionRows.filter(
    (row) =>
      (row.backend !== "postgres pool" ||
        Boolean(process.env.ARBOR_TEST_PG_URL)) &&
      (!only || only.includes(row.id)),
  );
  const outputs = join(root, ".bench", "callgrind");
  rmSync(outputs, { recursive: true, force: true });
  mkdirSync(outputs, { recursive: true });
  const compared = [];
  for (const row of rows) {
    const counts = builds.map((build, b) =>
      countRow(
        build,
        row,
        join(outputs, `row${row.id}-${b ? "after" : "before"}`),
      ),
    );
    const ratio = counts[1] / counts[0];
    compared.push({ ...row, before: counts[0], after: counts[1], ratio });
    console.log(
      `${String(row.id).padStart(2)} ${row.workload} (${row.backend}): ${format(counts[0])} → ${format(counts[1])} (${ratio.toFixed(3)})`,
    );
  }
  const lines = [
    `| Workload | Backend | Counted | ${builds[0].name} | ${builds[1].name} | Ratio |`,
    "| --- | --- | --- | --- | --- | --- |",
    ...compared.map(
      (row) =>
        `| ${row.workload} | ${row.backend} | ${row.counted} | ${format(row.before)} | ${format(row.after)} | ${row.ratio.toFixed(3)}${row.ratio > 1.05 ? " (over 5% more)" : ""} |`,
    ),
  ];
  console.log(
    "\ninstructions of each row's measured part, one callgrind run per build\n",
  );
  console.log(lines.join("\n"));
  writeFileSync(
    join(root, ".bench", "compare-instructions.json"),
    JSON.stringify(
      {
        at: new Date().toISOString(),
        node: process.version,
        builds: builds.map((build) => build.name),
        rows: compared,
      },
      null,
      2,
    ),
  );
}

/** Millions, one decimal. */
const format = (count) =>
  `${(count / 1e6).toLocaleString("en", { minimumFractionDigits: 1, maximumFractionDigits: 1 })}M`;

/** The instructions of `row`'s measured part on `build`; its callgrind output kept at `keep`. */
function countRow(build, row, keep) {
  const scratch = `${keep}.run`;
  mkdirSync(scratch, { recursive: true });
  const result = spawnSync(
    "valgrind",
    [
      ...CALLGRIND,
      `--callgrind-out-file=${join(scratch, "callgrind.out")}`,
      process.execPath,
      ...NODE,
      join(build.dir, "bench", "instruction-rows.mjs"),
      String(row.id),
    ],
    { cwd: build.dir, encoding: "utf8", env: process.env },
  );
  if (result.error) throw result.error;
  if (result.status !== 0)
    throw new Error(
      `${build.name}, row ${row.id} (${row.workload}): exited ${result.status}\n${result.stderr}`,
    );
  // The dump written at the end marker is part 1, one file per thread (`callgrind.out.1-01` for
  // the main thread); the rest of the process (teardown and exit) goes to the final files, which
  // are not kept. Only the main thread's count is taken: the library, SQLite (better-sqlite3 is
  // synchronous), the PostgreSQL client and, with --single-threaded-gc, the collector run there;
  // the other threads (libuv's pool, the platform's workers) did work whose timing, not amount,
  // differed between two runs of one build. A second part means a marker ran more than once.
  const parts = readdirSync(scratch).filter((file) => /\.\d+-01$/.test(file));
  if (parts.length !== 1)
    throw new Error(
      `${build.name}, row ${row.id}: expected one main-thread dump at the end marker, found ${parts.length}`,
    );
  const dump = readFileSync(join(scratch, parts[0]), "utf8");
  const summary = /^summary: (\d+)$/m.exec(dump);
  if (!summary || !/^desc: Trigger: --dump-before=uv_uptime$/m.test(dump))
    throw new Error(`${build.name}, row ${row.id}: no dump at the end marker`);
  renameSync(join(scratch, parts[0]), keep);
  rmSync(scratch, { recursive: true, force: true });
  return Number(summary[1]);
}

/** Whether callgrind is there to run (the mode needs valgrind on PATH). */
export function hasValgrind() {
  const probe = spawnSync("valgrind", ["--version"], { encoding: "utf8" });
  return probe.status === 0;
}
