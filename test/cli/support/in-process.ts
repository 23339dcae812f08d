// Runs `arbor …args` inside the test process: the CLI's own `main()` from src/, with stdout and
// stderr captured. No build and no subprocess, so a case costs milliseconds; runCli (cli.ts)
// stays for what only a real process shows (the bin, signals, a listening server).
import { format } from "node:util";
import { main } from "../../../src/cli/run.js";
import type { CliRun } from "./cli.js";

/** The variables that would change what the CLI does, unset during the run like cleanEnv does. */
const CLEARED = [
  "ARBOR_DB",
  "DATABASE_URL",
  "PORT",
  "ARBOR_BASE_URL",
  "ARBOR_MODEL",
  "ARBOR_API_KEY",
  "ARBOR_SUMMARY_MODEL",
  "ARBOR_DEBUG",
];

/**
 * Runs one command line to completion and returns its exit code and output. Runs one at a
 * time (it swaps the console and the process streams), so call it sequentially.
 */
export async function runCliInProcess(
  args: string[],
  options: { env?: Record<string, string> } = {},
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const savedEnv = new Map(
    [...CLEARED, ...Object.keys(options.env ?? {})].map((name) => [
      name,
      process.env[name],
    ]),
  );
  for (const name of CLEARED) delete process.env[name];
  Object.assign(process.env, options.env);
  // format() is what console uses: an Error prints with its stack (ARBOR_DEBUG).
  const toOut = (...values: unknown[]) => {
    stdout += `${format(...values)}\n`;
  };
  const toErr = (...values: unknown[]) => {
    stderr += `${format(...values)}\n`;
  };
  const saved = {
    log: console.log,
    info: console.info,
    warn: console.warn,
    error: console.error,
    stdoutWrite: process.stdout.write,
    stderrWrite: process.stderr.write,
  };
  console.log = toOut;
  console.info = toOut;
  console.warn = toErr;
  console.error = toErr;
  process.stdout.write = (chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  };
  process.stderr.write = (chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  };
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    console.log = saved.log;
    console.info = saved.info;
    console.warn = saved.warn;
    console.error = saved.error;
    process.stdout.write = saved.stdoutWrite;
    process.stderr.write = saved.stderrWrite;
    for (const [name, value] of savedEnv) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}
