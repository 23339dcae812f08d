import { readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { createAdaptorServer } from "@hono/node-server";
import type { SessionManager } from "../../session/index.js";
import {
  integerOption,
  STORE_OPTIONS,
  stringOption,
  UsageError,
  type CommandSpec,
} from "../args.js";
import { CliError } from "../errors.js";
import { GracefulShutdown, type RequestLike } from "../graceful-shutdown.js";
import { SERVE_TUNING_OPTIONS, serveTuning } from "../serve-tuning.js";
import { countOwnedSessions, unownedSessions } from "../session-data.js";
import { studioFiles } from "../static-files.js";
import { openStore, storeLocation } from "../store.js";

const DEFAULT_PORT = 4820;
const SAMPLE_FILE = new URL(
  "../../../examples/sample/sample.arbor.jsonl",
  import.meta.url,
);
const STUDIO_FOLDER = new URL("../../studio/", import.meta.url);
/** Paths the API owns; everything else may be a studio file. */
const API_PATH = /^\/(v1\/|mcp$|health$|ready$|openapi\.json$)/;
/** Server-sent event streams: they never finish, so a shutdown does not wait for them. */
const EVENT_STREAM = /^\/v1\/sessions\/[^/]+\/events(\?|$)/;
/**
 * Node's own socket limits: the whole request must arrive within this time (a client trickling
 * a body holds memory), and a connection silent this long is closed (a client that stopped
 * reading its answer). Event streams send a comment every 15 s, so they stay open.
 */
const RECEIVE_TIMEOUT_MS = 60_000;
const IDLE_SOCKET_TIMEOUT_MS = 120_000;
/** How long closing the database may take after the shutdown before the process exits anyway. */
const STORE_CLOSE_TIMEOUT_MS = 5_000;

/** `arbor serve`: the HTTP API and the studio on one port. */
export const serveCommand: CommandSpec = {
  name: "serve",
  summary: "Run the HTTP API (and the studio at /) over the store.",
  usage:
    "[--port <n>] [--host <host>] [--db <file> | --postgres <url>] [--no-auth] [--cors <origins>] [--pool-size <n>] …",
  positionals: { min: 0, max: 0 },
  details: `Binds to 127.0.0.1 by default. Another host is refused while no API key exists
(arbor keys create --tenant <name>); once a key exists every request but /health and
/openapi.json needs "Authorization: Bearer <key>". Without keys, sessions that have an owner
(a tenant) are not served: serve refuses to start unless given --no-auth. MCP clients reach the
same store at /mcp (Streamable HTTP, with the same keys; docs/mcp.md). An empty database gets
the sample conversation. Without keys only loopback Host names are answered (--allow-host adds
more) and writes from other origins are refused (--cors lets origins in). GET /ready reports
whether the database answers and request turns come back. On SIGINT or SIGTERM it stops accepting
connections, answers requests still arriving on open ones 503 SHUTTING_DOWN, lets requests in
flight finish within --shutdown-grace, closes idle connections after --shutdown-idle without a
request, then closes the database.`,
  options: {
    port: {
      type: "string",
      short: "p",
      value: "n",
      description: `port (default $PORT or ${DEFAULT_PORT}; 0 picks a free one)`,
    },
    host: {
      type: "string",
      value: "host",
      description: "interface to bind (default 127.0.0.1)",
    },
    "no-auth": {
      type: "boolean",
      description:
        "start without API keys even though sessions have owners (every request sees every session)",
    },
    "skip-sample": {
      type: "boolean",
      description: "do not load the sample into an empty database",
    },
    ...STORE_OPTIONS,
    ...SERVE_TUNING_OPTIONS,
  },
  run: async (command) => {
    const host = stringOption(command, "host") ?? "127.0.0.1";
    const port = portOption(command);
    const tuning = serveTuning(command);
    const store = await openStore(
      storeLocation({
        db: stringOption(command, "db"),
        postgres: stringOption(command, "postgres"),
      }),
      // POST /v1/sessions/{id}/compact summarizes with the configured model.
      { withModels: true, pool: tuning.pool },
    );
    let server: Server | undefined;
    try {
      const { createApp } = await import("../../server/index.js");
      const { mcpEndpoint } = await import("../../mcp/index.js");
      const keys = await store.keys();
      const authOn = await keys.hasKeys();
      const noAuth = command.values["no-auth"] === true;
      if (authOn && noAuth) {
        throw new UsageError(
          "--no-auth starts without API keys, but this store has keys: authentication stays on. Drop --no-auth (or revoke the keys: arbor keys revoke <id>)",
        );
      }
      if (!authOn && !isLoopback(host)) {
        throw new CliError(
          "AUTH_REQUIRED",
          `Refusing to listen on ${host} without an API key: anyone on the network could read every session. Create one first (arbor keys create --tenant <name>), or bind to 127.0.0.1.`,
        );
      }
      if (!authOn && !noAuth) {
        const owned = await countOwnedSessions(store.manager, 1);
        if (owned > 0) {
          throw new CliError(
            "AUTH_REQUIRED",
            "Refusing to start without an API key: sessions in this store have owners (tenants), and without keys every request would see them. Create a key (arbor keys create --tenant <name>), or start with --no-auth to serve them without authentication.",
          );
        }
      }
      if (command.values["skip-sample"] !== true)
        await loadSampleIfEmpty(store.manager);
      const app = createApp({
        manager: store.manager,
        ...(authOn ? { auth: keys } : {}),
        // The MCP SDK (an optional peer) loads on the first /mcp request.
        mcp: mcpEndpoint(),
        cors: tuning.cors,
        hosts: tuning.hosts,
        maxInFlight: tuning.maxInFlight,
        maxQueued: tuning.maxQueued,
        queueTargetMs: tuning.queueTargetMs,
        // A turn is a connection's worth of work: wait for one as long as for a connection.
        queueTimeoutMs: tuning.pool.acquireTimeoutMs,
        requestTimeoutMs: tuning.requestTimeoutMs,
        bodyTimeoutMs: tuning.bodyTimeoutMs,
        readyStallMs: tuning.readyStallMs,
      });
      const studio = await studioFiles(STUDIO_FOLDER);
      server = createAdaptorServer({
        hostname: host,
        fetch: async (request: Request) => {
          // Requests come only after `listen`, so `shutdown` below is set by then.
          if (shutdown.stopping) return shutdown.refusal();
          const { pathname } = new URL(request.url);
          if (
            (request.method === "GET" || request.method === "HEAD") &&
            !API_PATH.test(pathname)
          ) {
            const file = await studio(pathname);
            if (file) return file;
          }
          return app.fetch(request);
        },
      }) as Server;
      server.requestTimeout = RECEIVE_TIMEOUT_MS;
      server.headersTimeout = Math.min(RECEIVE_TIMEOUT_MS, 30_000);
      server.setTimeout(IDLE_SOCKET_TIMEOUT_MS);
      const shutdown = new GracefulShutdown(
        server,
        isEventStream,
        tuning.shutdownIdleMs,
      );
      // Registered before listening: a signal right after the URL is printed must not be missed.
      const closed = closeOnSignal(server, shutdown, tuning.shutdownGraceMs);
      const address = await listen(server, port, host);
      const shown =
        address.family === "IPv6" ? `[${address.address}]` : address.address;
      console.log(
        `Store: ${store.location.kind === "sqlite" ? store.location.target : "PostgreSQL"}; auth ${authOn ? "on (API keys required)" : noAuth ? "off (--no-auth: every request sees every session)" : "off (no API keys yet)"}`,
      );
      if (authOn && (await unownedSessions(store.manager, 1)).length > 0)
        console.log(
          "Some sessions have no owner, so no API key reaches them: arbor sessions assign --unowned --tenant <name>",
        );
      // Last: scripts and tests wait for this line.
      console.log(`Arbor is listening on http://${shown}:${address.port}`);
      await closed;
    } finally {
      // The pool waits for connections still checked out; a statement hung past the grace must
      // not keep the process up.
      await Promise.race([
        store.close(),
        new Promise((resolve) =>
          setTimeout(resolve, STORE_CLOSE_TIMEOUT_MS).unref(),
        ),
      ]);
    }
    // Closed server, closed store: a cut event stream may still hold a timer until its next
    // heartbeat, which must not keep the process up.
    process.exit(0);
  },
};

// --- Internal helpers ---

function portOption(command: Parameters<CommandSpec["run"]>[0]): number {
  const fromEnv = process.env.PORT;
  if (stringOption(command, "port") === undefined && fromEnv !== undefined) {
    if (!/^\d+$/.test(fromEnv) || Number(fromEnv) > 65535) {
      throw new UsageError(`PORT must be a port number, got "${fromEnv}"`);
    }
    return Number(fromEnv);
  }
  const port = integerOption(command, "port", DEFAULT_PORT, {
    allowZero: true,
  });
  if (port > 65535)
    throw new UsageError(`--port must be at most 65535, got ${port}`);
  return port;
}

function isLoopback(host: string): boolean {
  return (
    host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host)
  );
}

async function loadSampleIfEmpty(manager: SessionManager): Promise<void> {
  if ((await manager.list({ limit: 1 })).length > 0) return;
  let text: string;
  try {
    text = await readFile(SAMPLE_FILE, "utf8");
  } catch {
    console.error(
      "The database is empty and the sample file is missing; starting empty.",
    );
    return;
  }
  const { importConversations, parseConversations } =
    await import("../../formats/index.js");
  const sessions = await importConversations(
    manager,
    parseConversations(text, { fileName: "sample.arbor.jsonl" }),
  );
  for (const info of sessions) {
    console.log(
      `The database was empty: loaded the sample conversation "${info.name}" (${info.id}).`,
    );
  }
}

function listen(
  server: Server,
  port: number,
  host: string,
): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "EADDRINUSE"
          ? new CliError(
              "PORT_IN_USE",
              `Port ${port} on ${host} is in use: pick another with --port`,
              { cause: error },
            )
          : error,
      );
    };
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

function isEventStream(request: RequestLike): boolean {
  return request.method === "GET" && EVENT_STREAM.test(request.url ?? "");
}

/** Resolves once SIGINT or SIGTERM has shut the server down (see `GracefulShutdown`). */
function closeOnSignal(
  server: Server,
  shutdown: GracefulShutdown,
  graceMs: number,
): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      console.error(`${signal}: shutting down`);
      if (!server.listening) {
        server.once("listening", () => server.close());
        resolve();
        return;
      }
      void shutdown.stop(graceMs).then(resolve);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
