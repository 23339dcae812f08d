// Runs the compiled `arbor` bin as a subprocess, the way users run it. The path is
// dist/cli/main.js (npm test builds first) unless ARBOR_CLI names another build.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";

export { temporaryFolder } from "./folder.js";

/** The compiled CLI under test. */
export const CLI = resolve(process.env.ARBOR_CLI ?? "dist/cli/main.js");
if (!existsSync(CLI)) {
  throw new Error(
    `[test] ${CLI} is missing: run npm run build, or compile elsewhere (npx tsc -p tsconfig.build.json --outDir .build-cli) and set ARBOR_CLI=.build-cli/cli/main.js`,
  );
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** An environment without the variables that would change what the CLI does. */
export function cleanEnv(
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    "ARBOR_DB",
    "DATABASE_URL",
    "PORT",
    "ARBOR_BASE_URL",
    "ARBOR_MODEL",
    "ARBOR_API_KEY",
    "ARBOR_SUMMARY_MODEL",
    "ARBOR_DEBUG",
  ])
    delete env[name];
  return { ...env, ...extra };
}

/** Runs `arbor …args` to completion (asynchronously, so fake servers in this process answer). */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; input?: string; cwd?: string } = {},
): Promise<CliRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: cleanEnv(options.env),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

/** A running `arbor serve`. */
export interface ServeProcess {
  url: string;
  child: ChildProcess;
  output(): { stdout: string; stderr: string };
  /** Sends `signal` (once) and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `arbor serve` on a free port and resolves once it prints its URL. */
export function startServe(
  args: string[],
  options: { env?: Record<string, string> } = {},
): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    [CLI, "serve", "--port", "0", ...args],
    {
      env: cleanEnv(options.env),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  let signalled = false;
  const exited = new Promise<number | null>((done) => child.on("close", done));
  const output = () => ({ stdout, stderr });
  return new Promise((done, fail) => {
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match)
        done({
          url: match[1]!,
          child,
          output,
          stop: async (signal = "SIGTERM") => {
            if (
              child.exitCode === null &&
              child.signalCode === null &&
              !signalled
            ) {
              signalled = true;
              child.kill(signal);
            }
            return exited;
          },
        });
    });
    void exited.then((code) =>
      fail(
        new Error(
          `arbor serve exited (${code}) before listening:\n${stdout}\n${stderr}`,
        ),
      ),
    );
  });
}
