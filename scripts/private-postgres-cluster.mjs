// A PostgreSQL cluster of its own for a fault run that restarts the database for real
// (`pg_ctl restart -m fast`: every connection gets 57P01, new ones are refused, then 57P03 while it
// starts), never touching the shared server other runs and tests use. It runs on a free loopback
// port from a temporary data directory, with trust auth and fsync off, and is removed by `stop()`.
// Needs the server binaries (`initdb`, `pg_ctl`: /usr/lib/postgresql/<version>/bin on Debian);
// as root it runs them as the `postgres` user, since PostgreSQL refuses to run as root.
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
} from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The directory of `initdb` and `pg_ctl`, or `null` when they are not installed. */
export function postgresBinaries() {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0], "bin") : null;
}

/** Starts the cluster; resolves to its superuser URL, `restart()` and `stop()`. */
export async function startPrivateCluster() {
  const bin = postgresBinaries();
  if (!bin)
    throw new Error(
      "[arbor] a private PostgreSQL cluster needs initdb and pg_ctl (apt-get install postgresql)",
    );
  const dir = mkdtempSync(join(tmpdir(), "arbor-pg-cluster-"));
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = postgresUser();
    chownSync(dir, uid, gid);
  }
  const run = (command, args) =>
    execFileSync(
      asRoot ? "runuser" : join(bin, command),
      asRoot ? ["-u", "postgres", "--", join(bin, command), ...args] : args,
      { stdio: ["ignore", "ignore", "pipe"] },
    );
  const port = await freePort();
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c max_connections=100`;
  const pgCtl = (action, extra = []) =>
    run("pg_ctl", ["-D", data, "-w", "-t", "60", ...extra, action]);
  // The restart runs beside the load, so the event loop keeps serving the clients meanwhile.
  const pgCtlAsync = (action, extra = []) => {
    const args = ["-D", data, "-w", "-t", "60", ...extra, action];
    return asRoot
      ? promisify(execFile)("runuser", [
          "-u",
          "postgres",
          "--",
          join(bin, "pg_ctl"),
          ...args,
        ])
      : promisify(execFile)(join(bin, "pg_ctl"), args);
  };
  pgCtl("start", ["-o", options, "-l", join(dir, "log")]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    /** A fast restart: connections are terminated, and the server is back when it resolves. */
    async restart() {
      // With its log file: the new server must not hold this process's pipes open.
      await pgCtlAsync("restart", [
        "-m",
        "fast",
        "-o",
        options,
        "-l",
        join(dir, "log"),
      ]);
    },
    stop() {
      try {
        pgCtl("stop", ["-m", "immediate"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

function postgresUser() {
  const line = execFileSync("getent", ["passwd", "postgres"], {
    encoding: "utf8",
  });
  const [, , uid, gid] = line.trim().split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
