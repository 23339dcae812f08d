import { availableParallelism } from "node:os";
import {
  UsageError,
  stringOption,
  type OptionSpec,
  type ParsedCommand,
} from "./args.js";

/** How `arbor serve` holds load: the PostgreSQL pool, the request limits, the shutdown. */
export interface ServeTuning {
  pool: PoolTuning;
  /** Requests served at once; more wait for a turn (see `queueTargetMs`). */
  maxInFlight: number;
  /** Requests waiting for a turn at most (a bound on memory). */
  maxQueued: number;
  /** A request joins the queue only if its expected wait is at most this; else 503 `OVERLOADED`. */
  queueTargetMs: number;
  /** A request running longer answers 503 `REQUEST_TIMEOUT`. */
  requestTimeoutMs: number;
  /** A request body still arriving after this long answers 408 `BODY_TIMEOUT`. */
  bodyTimeoutMs: number;
  /** `/ready` answers 503 once every request turn has been held this long with none given back. */
  readyStallMs: number;
  /** How long requests in flight may finish after SIGTERM before their connections are cut. */
  shutdownGraceMs: number;
  /** After SIGTERM, how long no request may be in flight nor arrive before idle connections close. */
  shutdownIdleMs: number;
  /** CORS origins (none: CORS off). */
  cors: string[];
  /** Host names served without API keys besides the loopback names. */
  hosts: string[];
}

/** The PostgreSQL pool: its size and how long anything may wait on the database. */
export interface PoolTuning {
  /** Connections per process. */
  max: number;
  /** Wait for a free connection at most this long, then 503 `STORAGE_UNAVAILABLE`. */
  acquireTimeoutMs: number;
  /** The server cancels a statement running longer (`statement_timeout`). */
  statementTimeoutMs: number;
}

/** Each tunable: its flag, its environment variable, its help line. */
const TUNABLES = {
  "pool-size": {
    env: "ARBOR_PG_POOL_SIZE",
    help: "PostgreSQL connections per process (default 2 per CPU + 2, 4 to 20)",
  },
  "pool-timeout": {
    env: "ARBOR_PG_POOL_TIMEOUT_MS",
    help: "ms a request waits for a free connection before 503 (default 5000)",
  },
  "statement-timeout": {
    env: "ARBOR_PG_STATEMENT_TIMEOUT_MS",
    help: "ms a PostgreSQL statement may run (default 15000; 0: none)",
  },
  "request-timeout": {
    env: "ARBOR_REQUEST_TIMEOUT_MS",
    help: "ms a request may run before 503 REQUEST_TIMEOUT (default 30000; 0: none)",
  },
  "body-timeout": {
    env: "ARBOR_BODY_TIMEOUT_MS",
    help: "ms a request body may take to arrive, read before the request takes a turn (default: the request timeout, else 30000; 0: none)",
  },
  "ready-stall": {
    env: "ARBOR_READY_STALL_MS",
    help: "ms every request turn may stay held with none given back before /ready answers 503 (default 10000; 0: never)",
  },
  "max-in-flight": {
    env: "ARBOR_MAX_IN_FLIGHT",
    help: "requests running at once (default 4 per pool connection); more wait for a turn (--queue-target)",
  },
  "max-queued": {
    env: "ARBOR_MAX_QUEUED",
    help: "requests waiting for a turn at most, a bound on memory (default 16 times --max-in-flight); one more answers 503 OVERLOADED",
  },
  "queue-target": {
    env: "ARBOR_QUEUE_TARGET_MS",
    help: "ms a request may expect to wait for a turn (by the observed service time); one that would wait longer answers 503 OVERLOADED at once with Retry-After (default 1000)",
  },
  "shutdown-grace": {
    env: "ARBOR_SHUTDOWN_GRACE_MS",
    help: "ms requests in flight may finish after SIGTERM (default 10000)",
  },
  "shutdown-idle": {
    env: "ARBOR_SHUTDOWN_IDLE_MS",
    help: "ms after SIGTERM with no request in flight or arriving before idle keep-alive connections are closed (default 1000; within --shutdown-grace)",
  },
} as const;

/** The options `arbor serve` adds for load, faults and browsers. */
export const SERVE_TUNING_OPTIONS: Record<string, OptionSpec> = {
  ...Object.fromEntries(
    Object.entries(TUNABLES).map(([name, tunable]) => [
      name,
      {
        type: "string",
        value: name.endsWith("size") || name.startsWith("max") ? "n" : "ms",
        description: `${tunable.help}; or $${tunable.env}`,
      } satisfies OptionSpec,
    ]),
  ),
  cors: {
    type: "string",
    value: "origins",
    description:
      "let browser apps on these origins call the API (comma-separated, or *; or $ARBOR_CORS; default off)",
  },
  "allow-host": {
    type: "string",
    value: "names",
    description:
      "without API keys, also answer these Host names (comma-separated; or $ARBOR_ALLOWED_HOSTS)",
  },
};

/**
 * The tuning from the flags, else the environment, else defaults sized from the machine: a
 * pool of two connections per CPU plus two (PostgreSQL works while Node waits on the socket),
 * and four requests in flight per connection, enough to keep the pool busy while memory
 * stays bounded.
 */
export function serveTuning(
  command: ParsedCommand,
  env: NodeJS.ProcessEnv = process.env,
  cpus: number = availableParallelism(),
): ServeTuning {
  const read = (name: keyof typeof TUNABLES, fallback: number, min = 0) => {
    const flag = stringOption(command, name);
    const raw = flag ?? env[TUNABLES[name].env];
    if (raw === undefined || raw === "") return fallback;
    const source = flag !== undefined ? `--${name}` : TUNABLES[name].env;
    if (!/^\d+$/.test(raw) || Number(raw) < min) {
      throw new UsageError(
        `${source} takes an integer of at least ${min}, got "${raw}"`,
      );
    }
    return Number(raw);
  };
  const max = read("pool-size", Math.min(20, Math.max(4, 2 * cpus + 2)), 1);
  const list = (flag: string, variable: string) =>
    (stringOption(command, flag) ?? env[variable] ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean);
  const requestTimeoutMs = read("request-timeout", 30_000);
  const maxInFlight = read("max-in-flight", 4 * max, 1);
  return {
    pool: {
      max,
      acquireTimeoutMs: read("pool-timeout", 5_000, 1),
      statementTimeoutMs: read("statement-timeout", 15_000),
    },
    maxInFlight,
    maxQueued: read("max-queued", 16 * maxInFlight),
    queueTargetMs: read("queue-target", 1_000, 1),
    requestTimeoutMs,
    bodyTimeoutMs: read("body-timeout", requestTimeoutMs || 30_000),
    readyStallMs: read("ready-stall", 10_000),
    shutdownGraceMs: read("shutdown-grace", 10_000),
    shutdownIdleMs: read("shutdown-idle", 1_000),
    cors: list("cors", "ARBOR_CORS"),
    hosts: list("allow-host", "ARBOR_ALLOWED_HOSTS"),
  };
}
