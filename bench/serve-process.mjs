// `arbor serve` as a child process for the server benchmarks and fault runs: started on a free
// port (read from its "listening on" line), stopped with SIGTERM as an operator stops it.
import { spawn } from "node:child_process";

/**
 * Starts `node dist/cli/main.js serve …storeArgs --port 0 --skip-sample` and resolves once it
 * listens. `alive` turns false when the process exits; `exited` resolves then; `stop()` sends
 * SIGTERM and waits for the exit.
 */
export async function startServe(storeArgs) {
  const child = spawn(
    process.execPath,
    ["dist/cli/main.js", "serve", ...storeArgs, "--port", "0", "--skip-sample"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
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
