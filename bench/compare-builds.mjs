// Before and after: Arbor's own workloads (`node bench/run.mjs --own`) on an earlier commit and on
// this checkout, run alternately in one sitting, so the two builds meet the same machine state.
// The earlier commit is checked out in a temporary worktree beside this one, shares this
// checkout's node_modules, and is built with tsc alone; both run the benchmark scripts of THIS
// checkout, so the workloads are the same and only the library differs. Prints, per row, the
// median of the runs of each build and the change; writes .bench/compare.json. Not a test.
// With --instructions it counts instructions instead of timing (bench/instructions.mjs): each
// row once per build under callgrind, which the machine's load does not move.
//
//   node bench/compare-builds.mjs <commit> [--runs 3]   (after `npm run build`;
//   ARBOR_TEST_PG_URL adds the PostgreSQL rows)
//   node bench/compare-builds.mjs <commit> --instructions [--rows 17,23]   (needs valgrind)
import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compareInstructions, hasValgrind } from "./instructions.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const args = process.argv.slice(2);
const ref = args.find(
  (arg, at) =>
    !arg.startsWith("--") && !["--runs", "--rows"].includes(args[at - 1]),
);
const runsAt = args.indexOf("--runs");
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : 3;
const INSTRUCTIONS = args.includes("--instructions");
// --rows 17,23: only those instruction rows (ids as bench/instruction-rows.mjs numbers them).
const rowsAt = args.indexOf("--rows");
const ROWS = rowsAt >= 0 ? args[rowsAt + 1].split(",").map(Number) : null;
if (!ref || !(RUNS >= 1)) {
  console.error(
    "usage: node bench/compare-builds.mjs <commit> [--runs N | --instructions [--rows 1,2]]",
  );
  process.exit(2);
}
if (INSTRUCTIONS && !hasValgrind()) {
  console.error("compare-builds: --instructions needs valgrind on PATH");
  process.exit(2);
}
if (!existsSync(join(ROOT, "dist", "session", "index.js"))) {
  console.error("compare-builds: run `npm run build` first");
  process.exit(2);
}

const git = (...gitArgs) =>
  execFileSync("git", gitArgs, { cwd: ROOT, encoding: "utf8" }).trim();
let sha;
try {
  sha = execFileSync(
    "git",
    ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`],
    {
      cwd: ROOT,
      encoding: "utf8",
    },
  ).trim();
} catch {
  console.error(`compare-builds: ${ref} names no commit of this repository`);
  process.exit(2);
}
const head = git("rev-parse", "--short", "HEAD");
const before = join(tmpdir(), `arbor-before-${sha.slice(0, 12)}`);

// The earlier build: a detached worktree, this checkout's node_modules, tsc only.
if (!existsSync(join(before, "dist", "session", "index.js"))) {
  if (!existsSync(before)) git("worktree", "add", "--detach", before, sha);
  if (!existsSync(join(before, "node_modules")))
    symlinkSync(join(ROOT, "node_modules"), join(before, "node_modules"));
  console.log(`building ${sha.slice(0, 12)} in ${before}`);
  execFileSync(
    join(ROOT, "node_modules", ".bin", "tsc"),
    ["-p", "tsconfig.build.json"],
    { cwd: before, stdio: "inherit" },
  );
}
// Both builds run this checkout's workloads.
mkdirSync(join(before, "bench"), { recursive: true });
for (const file of readdirSync(join(ROOT, "bench")))
  if (file.endsWith(".mjs"))
    cpSync(join(ROOT, "bench", file), join(before, "bench", file));

const builds = [
  { name: `before (${sha.slice(0, 7)})`, dir: before, runs: [] },
  { name: `after (${head})`, dir: ROOT, runs: [] },
];
if (INSTRUCTIONS) {
  await compareInstructions(builds, ROOT, ROWS);
  process.exit(0);
}
for (let run = 0; run < RUNS; run++) {
  // Alternate which build goes first, so neither always meets the warmer machine.
  const order = run % 2 === 0 ? builds : [...builds].reverse();
  for (const build of order) {
    console.log(`run ${run + 1}/${RUNS}: ${build.name}`);
    const result = spawnSync(
      process.execPath,
      [join(build.dir, "bench", "run.mjs"), "--own"],
      {
        cwd: build.dir,
        stdio: ["ignore", "ignore", "inherit"],
        env: process.env,
      },
    );
    if (result.status !== 0)
      throw new Error(
        `${build.name}: bench/run.mjs --own exited ${result.status}`,
      );
    const { rows } = JSON.parse(
      readFileSync(join(build.dir, ".bench", "results.json"), "utf8"),
    );
    build.runs.push(rows);
  }
}

/** Median of each row over the runs of one build, keyed by workload and backend. */
function medians(runs) {
  const values = new Map();
  for (const rows of runs)
    for (const row of rows) {
      const key = `${row.workload}\u0000${row.backend}`;
      const entry = values.get(key) ?? { ...row, values: [] };
      entry.values.push(row.value);
      values.set(key, entry);
    }
  for (const entry of values.values()) {
    const sorted = [...entry.values].sort((a, b) => a - b);
    entry.median = sorted[Math.floor((sorted.length - 1) / 2)];
  }
  return values;
}

const [was, now] = builds.map((build) => medians(build.runs));
const format = (value) =>
  value >= 100 ? Math.round(value).toLocaleString("en") : value.toFixed(2);
const lines = [
  `| Workload | Backend | ${builds[0].name} | ${builds[1].name} | Change |`,
  "| --- | --- | --- | --- | --- |",
];
const compared = [];
for (const [key, after] of now) {
  const earlier = was.get(key);
  if (!earlier) continue;
  // Rates are better higher, times better lower: the change is "how much faster" either way.
  const higherIsBetter = after.unit.endsWith("/s");
  const speedup = higherIsBetter
    ? after.median / earlier.median
    : earlier.median / after.median;
  compared.push({
    workload: after.workload,
    backend: after.backend,
    unit: after.unit,
    before: earlier.median,
    after: after.median,
    speedup,
  });
  const change =
    speedup >= 1
      ? `${speedup.toFixed(2)}x faster`
      : `${(1 / speedup).toFixed(2)}x slower${speedup < 0.95 ? " (over 5%)" : ""}`;
  lines.push(
    `| ${after.workload} | ${after.backend} | ${format(earlier.median)} ${after.unit} | ${format(after.median)} ${after.unit} | ${change} |`,
  );
}
console.log(
  `\nmedian of ${RUNS} run${RUNS > 1 ? "s" : ""} per build, alternating\n`,
);
console.log(lines.join("\n"));
mkdirSync(join(ROOT, ".bench"), { recursive: true });
writeFileSync(
  join(ROOT, ".bench", "compare.json"),
  JSON.stringify(
    {
      at: new Date().toISOString(),
      runs: RUNS,
      builds: builds.map((b) => b.name),
      rows: compared,
    },
    null,
    2,
  ),
);
