// `arbor serve` as a child process for the server benchmarks and fault runs: started on a free
// port (read from its "listening on" line), stopped with SIGTERM as an operator stops it; its CPU
// time from /proc, and a cgroup CPU quota per process for the runs that hold each server to a budget.
import { spawn } from "node:child_process";
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ on Linux). */
export const TICKS_PER_SECOND = 100;

/**
 * Starts `node dist/cli/main.js serve …storeArgs --port 0 --skip-sample` and resolves once it
 * listens (`ARBOR_BENCH_SERVE_CLI` names another build's `main.js`, to run two builds side by
 * side: a copy of an earlier `dist/` kept under `node_modules/`, where its imports resolve).
 * `ARBOR_BENCH_SERVE_NODE_ARGS` adds flags for the servers' node alone, space-separated (say
 * `--cpu-prof --cpu-prof-dir=/tmp/profiles`: a profile per server, written when it stops).
 * `ARBOR_BENCH_SERVE_LOG` names a file the servers' standard output is written to (with
 * `--trace-gc-nvp` among the flags, the collector's line per pause).
 * `alive` turns false when the process exits; `exited` resolves then; `stop()` sends SIGTERM and
 * waits for the exit.
 */
export async function startServe(storeArgs) {
  const child = spawn(
    process.execPath,
    [
      ...(process.env.ARBOR_BENCH_SERVE_NODE_ARGS ?? "")
        .split(" ")
        .filter(Boolean),
      process.env.ARBOR_BENCH_SERVE_CLI ?? "dist/cli/main.js",
      "serve",
      ...storeArgs,
      "--port",
      "0",
      "--skip-sample",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  // The server's own output (say `--trace-gc-nvp` lines) kept in a file, when asked for.
  if (process.env.ARBOR_BENCH_SERVE_LOG)
    child.stdout.pipe(createWriteStream(process.env.ARBOR_BENCH_SERVE_LOG));
  const exited = new Promise((resolve) => child.once("exit", resolve));
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
  const server = {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    alive: true,
    exited,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
  void exited.then(() => (server.alive = false));
  return server;
}

/** SIGTERM to every server still alive, resolving when all have exited. */
export function stopAll(servers) {
  return Promise.all(servers.map((server) => server.stop()));
}

/** utime + stime of a live process, in clock ticks; `undefined` once it is gone. */
export function cpuTicks(server) {
  try {
    const stat = readFileSync(`/proc/${server.child.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/**
 * A CPU quota of `cores` for each process handed to `hold(pid)`, each in a cgroup of its own (v2:
 * `cpu.max`; v1: `cpu.cfs_quota_us`), or `null` when no cgroup CPU controller is writable here.
 */
export function cpuBudget(cores) {
  const period = 100_000;
  const quota = Math.round(cores * period);
  const layouts = [
    {
      root: "/sys/fs/cgroup",
      check: "/sys/fs/cgroup/cgroup.controllers",
      limit: (dir) => writeFileSync(join(dir, "cpu.max"), `${quota} ${period}`),
    },
    {
      root: "/sys/fs/cgroup/cpu",
      check: "/sys/fs/cgroup/cpu/cpu.cfs_quota_us",
      limit: (dir) => {
        writeFileSync(join(dir, "cpu.cfs_period_us"), String(period));
        writeFileSync(join(dir, "cpu.cfs_quota_us"), String(quota));
      },
    },
  ];
  for (const layout of layouts) {
    if (!existsSync(layout.check)) continue;
    if (layout.root === "/sys/fs/cgroup") {
      const controllers = readFileSync(layout.check, "utf8");
      if (!controllers.split(/\s+/).includes("cpu")) continue;
    }
    const made = [];
    const open = () => {
      const dir = join(
        layout.root,
        `arbor-bench-${process.pid}-${made.length}`,
      );
      mkdirSync(dir);
      made.push(dir);
      layout.limit(dir);
      return dir;
    };
    try {
      rmdirSync(open());
      made.pop();
    } catch {
      // not writable here (not root, or the controller is not delegated): try the next layout
      for (const dir of made.splice(0)) removeGroup(dir);
      continue;
    }
    return {
      hold(pid) {
        writeFileSync(join(open(), "cgroup.procs"), String(pid));
      },
      remove() {
        // A cgroup can be removed once its processes have exited (stopAll waits for that).
        for (const dir of made) removeGroup(dir);
      },
    };
  }
  return null;
}

function removeGroup(dir) {
  try {
    rmdirSync(dir);
  } catch {
    // never made, or a process still in it: nothing more to do
  }
}
