// The long run of the model-based property tests (npm run test:long): 10,000 random sequences per
// backend (ARBOR_LONG_RUNS to change it) on memory, SQLite, PostgreSQL (pg and postgres.js, at
// ARBOR_TEST_PG_URL) and workerd. Writes the outcome to docs/reliability-long-run.json, which
// `npm run docs:reliability` puts into docs/reliability.md.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const runs = Number(process.env.ARBOR_LONG_RUNS ?? 10_000);
const files = [
  "test/trust/model-memory-sqlite.test.ts",
  "test/trust/model-postgres.int.test.ts",
  "test/trust/model-workerd.int.test.ts",
];
const folder = mkdtempSync(join(tmpdir(), "arbor-long-"));
const report = join(folder, "report.json");
const started = Date.now();
const run = spawnSync(
  "npx",
  [
    "vitest",
    "run",
    ...files,
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
  ],
  {
    stdio: "inherit",
    env: { ...process.env, ARBOR_MODEL_RUNS: String(runs), CI: "true" },
  },
);
const results = JSON.parse(readFileSync(report, "utf8"));
rmSync(folder, { recursive: true, force: true });
const outcome = {
  date: new Date(started).toISOString(),
  runsPerBackend: runs,
  minutes: Math.round((Date.now() - started) / 600) / 100,
  node: process.version,
  tests: results.testResults.flatMap((file) =>
    file.assertionResults.map((test) => ({
      file: file.name.slice(file.name.indexOf("test/")),
      name: test.fullName,
      status: test.status,
      seconds: Math.round((test.duration ?? 0) / 100) / 10,
      ...(test.failureMessages?.length
        ? { failure: test.failureMessages[0].split("\n")[0] }
        : {}),
    })),
  ),
};
writeFileSync(
  "docs/reliability-long-run.json",
  `${JSON.stringify(outcome, null, 2)}\n`,
);
console.log(
  `\nLong run: ${outcome.tests.filter((t) => t.status === "passed").length}/${outcome.tests.length} passed in ${outcome.minutes} min; written to docs/reliability-long-run.json`,
);
process.exitCode = run.status ?? 1;
