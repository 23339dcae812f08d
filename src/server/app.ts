import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { cors as corsMiddleware } from "hono/cors";
import type { MiddlewareHandler } from "hono";
import type { CompactionFunction } from "../session/compaction/session-compaction.js";
import type { SessionManager } from "../session/manager/session-manager.js";
import type { KeyVerifier } from "../session/contracts/api-keys.js";
import { bearerAuth } from "./auth/bearer-auth.js";
import { browserGuard } from "./browser/browser-guard.js";
import { tenantOf, type ServerEnv } from "./context.js";
import { errorResponse, handleError, type ErrorLogger } from "./errors.js";
import { eventRoutes } from "./events.js";
import type { McpEndpoint } from "./mcp-endpoint.js";
import { blockRoutes } from "./routes/blocks.js";
import { contextWindowRoutes } from "./routes/context-window.js";
import { compactionRoutes } from "./routes/compactions.js";
import { historyRoutes } from "./routes/history.js";
import { messageRoutes } from "./routes/messages.js";
import { searchRoutes } from "./routes/search.js";
import { sessionRoutes } from "./routes/sessions.js";
import { transferRoutes } from "./routes/transfer.js";
import { readBodies, type BodyReading } from "./reliability/body-reading.js";
import {
  LARGE_ANSWER_TURNS,
  LargeAnswers,
} from "./reliability/large-answer-lane.js";
import { LoadLimiter } from "./reliability/load-limits.js";
import { readinessRoute } from "./reliability/readiness.js";
import { OutageLog } from "./reliability/storage-faults.js";
import { json } from "./schemas/common.js";
import { validationHook } from "./validation.js";

/** Default body limits: imports carry whole files, every other body is small JSON. */
export const DEFAULT_BODY_LIMIT = {
  api: 1024 * 1024,
  import: 10 * 1024 * 1024,
};

/** Default load limits: requests at once (more answer 503 at once) and the time one may take. */
export const DEFAULT_LOAD_LIMITS = {
  maxInFlight: 256,
  queueTargetMs: 1_000,
  queueTimeoutMs: 5_000,
  requestTimeoutMs: 30_000,
  readyStallMs: 10_000,
};

/** The body read timeout when the request timeout is off. */
const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** Bytes of request bodies held at once by default: 64 MiB. */
const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Options of `createApp()`. */
export interface CreateAppOptions {
  /** The sessions the API serves. Its builder settings (blocks, compaction…) apply to them. */
  manager: SessionManager;
  /**
   * An `ApiKeyStore` (or any `verify(key) → tenant | null`). With it every route but `/health`
   * and `/openapi.json` needs `Authorization: Bearer <key>`, and each key sees its tenant's
   * sessions only. Without it every session is reachable.
   */
  auth?: KeyVerifier;
  /** Body limits in bytes (→ 413): a number for both, or `{ api, import }`. Default 1 MiB / 10 MiB. */
  bodyLimit?: number | { api?: number; import?: number };
  /**
   * The summarizer `POST /v1/sessions/{id}/compact` runs: shorthand for
   * `manager.onCompaction(compaction)` (it sets it on the manager).
   */
  compaction?: CompactionFunction;
  /**
   * Receives unexpected (500) errors, never request headers; and one line (with no error) per
   * 501 `NOT_SUPPORTED`, when a storage outage starts and when it ends, and when every request
   * turn stays held and when one comes back. Client errors (4xx) are not logged. Default
   * `console.error`.
   */
  logError?: ErrorLogger;
  /**
   * Origins a browser app may call the API from (CORS): `"https://app.example"`, a list, or
   * `"*"`. Off by default: no CORS headers, and without `auth` writes from other origins are
   * refused.
   */
  cors?: string | readonly string[];
  /**
   * Without `auth`: the `Host` names served besides `localhost`, `127.0.0.1` and `[::1]`
   * (`"arbor.internal"` or `"arbor.internal:4820"`). Any other `Host` answers 403
   * `FORBIDDEN_HOST`, which stops DNS rebinding. Ignored with `auth`.
   */
  hosts?: readonly string[];
  /**
   * Requests served at once (`/v1` and `/mcp`), so memory stays bounded under many slow clients.
   * Default 256; 0 for no limit.
   */
  maxInFlight?: number;
  /**
   * Requests that may wait for a turn (their body already read) when `maxInFlight` run, at most:
   * a bound on memory; which requests wait is `queueTargetMs`'s to say. One more answers 503
   * `OVERLOADED` with a `Retry-After` of the time the queue takes to drain. Default sixteen
   * times `maxInFlight`.
   */
  maxQueued?: number;
  /**
   * The shed policy's latency bound: a request joins the queue only if its expected wait (the
   * requests ahead of it, served `maxInFlight` at a time, by the observed time a turn is held)
   * is at most this many milliseconds; otherwise it answers 503 `OVERLOADED` at once, with a
   * `Retry-After` of the time the queue takes to drain. So the queue holds what the server
   * serves in this time. Default 1000 (capped by `queueTimeoutMs`).
   */
  queueTargetMs?: number;
  /** Milliseconds a request may wait for a turn. Default 5000. */
  queueTimeoutMs?: number;
  /**
   * Milliseconds a request may run before it answers 503 `REQUEST_TIMEOUT` (event streams are
   * not cut: their handler returns at once). Default 30 000; 0 for none.
   */
  requestTimeoutMs?: number;
  /**
   * Milliseconds a request body may take to arrive, read in full (within `bodyLimit`) before the
   * request asks for a turn, so a slow upload never holds one; a body still arriving answers 408
   * `BODY_TIMEOUT`. Default `requestTimeoutMs` (30 000 when that is 0); 0 for none.
   */
  bodyTimeoutMs?: number;
  /**
   * Bytes of request bodies held at once, across all requests (arriving, waiting for a turn, or
   * in use by their route); a body that would pass it answers 503 `OVERLOADED`. Bodies are read
   * before a turn, so this, not `maxInFlight`, bounds their memory. Default 64 MiB; 0 for no
   * limit.
   */
  maxBodyBytes?: number;
  /**
   * `GET /ready` answers 503 `OVERLOADED` once all `maxInFlight` turns are held and none has
   * been given back for this many milliseconds: the server is wedged, not busy (a busy one gives
   * turns back all the time), and a load balancer should stop sending it requests. Default
   * 10 000; 0 for never.
   */
  readyStallMs?: number;
  /**
   * The Model Context Protocol endpoint to serve at `/mcp` (Streamable HTTP, stateless), behind
   * the same API keys as `/v1`: `mcpEndpoint()` from `arbor-memory/mcp` (docs/mcp.md). Without
   * it `/mcp` is not a route.
   */
  mcp?: McpEndpoint;
  /**
   * Milliseconds a request with an `Idempotency-Key` waits for the answer of the request with
   * that key that still runs (then 409 `IDEMPOTENCY_IN_PROGRESS`). Default 10 000.
   */
  idempotencyWaitMs?: number;
}

const health = createRoute({
  method: "get",
  path: "/health",
  tags: ["Server"],
  summary:
    "Liveness: the process answers (the storage is not asked; see /ready)",
  responses: {
    200: json(z.object({ status: z.literal("ok") }).openapi("Health"), "Alive"),
  },
});

/**
 * The HTTP API over a SessionManager (docs/server.md), as an `OpenAPIHono` app: serve it with
 * `@hono/node-server`, export its `fetch` from a Worker, or call it from a Durable Object.
 *
 * @example
 * ```ts
 * import { SessionManager } from "arbor-memory/session";
 * import { createApp } from "arbor-memory/server";
 *
 * const app = createApp({ manager: SessionManager.inMemory() });
 * const response = await app.request("/v1/sessions", {
 *   method: "POST",
 *   headers: { "Content-Type": "application/json" },
 *   body: JSON.stringify({ name: "Trip planning" }),
 * });
 * ```
 */
export function createApp(options: CreateAppOptions): OpenAPIHono<ServerEnv> {
  const { manager, auth } = options;
  if (options.compaction) manager.onCompaction(options.compaction);
  const app = new OpenAPIHono<ServerEnv>({ defaultHook: validationHook });
  const logError = options.logError ?? defaultLogger;
  const outage = new OutageLog((line) => logError(line, undefined));
  /** When each request began: its outcome speaks for the storage from then on (OutageLog). */
  // Keyed by the request's context object, whatever its type parameters.
  const started = new WeakMap<object, number>();
  app.onError(handleError(logError, outage, (c) => started.get(c)));
  app.notFound((c) =>
    errorResponse(c, "NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`),
  );
  app.use("*", async (c, next) => {
    c.set("tenant", null);
    started.set(c, Date.now());
    await next();
    // A success past the storage: an outage, if there was one, is over. (A 4xx may never have
    // asked the storage, so it proves nothing.)
    if (outage.inOutage && c.res.status < 300 && c.req.path !== "/health")
      outage.succeeded(started.get(c));
  });
  const trustedOrigins = corsOrigins(options.cors);
  if (trustedOrigins.length > 0) app.use("*", cors(trustedOrigins));
  if (!auth) {
    app.use("*", browserGuard({ hosts: options.hosts ?? [], trustedOrigins }));
  }
  const maxInFlight = options.maxInFlight ?? DEFAULT_LOAD_LIMITS.maxInFlight;
  const requestTimeoutMs =
    options.requestTimeoutMs ?? DEFAULT_LOAD_LIMITS.requestTimeoutMs;
  const limiter = new LoadLimiter({
    maxInFlight,
    maxQueued: options.maxQueued ?? 16 * maxInFlight,
    queueTargetMs: options.queueTargetMs ?? DEFAULT_LOAD_LIMITS.queueTargetMs,
    queueTimeoutMs:
      options.queueTimeoutMs ?? DEFAULT_LOAD_LIMITS.queueTimeoutMs,
    requestTimeoutMs,
    stallMs: options.readyStallMs ?? DEFAULT_LOAD_LIMITS.readyStallMs,
    log: (line) => logError(line, undefined),
  });
  // Requests for histories known to answer large take their turns in a lane of their own, so a
  // burst of them never holds the turns or the queue every other request needs
  // (large-answer-lane.ts). Its queue follows the same shed policy.
  const largeAnswers = new LargeAnswers();
  const largeAnswerLane = new LoadLimiter({
    maxInFlight:
      maxInFlight > 0 ? Math.min(LARGE_ANSWER_TURNS, maxInFlight) : 0,
    maxQueued: options.maxQueued ?? 16 * maxInFlight,
    queueTargetMs: options.queueTargetMs ?? DEFAULT_LOAD_LIMITS.queueTargetMs,
    queueTimeoutMs:
      options.queueTimeoutMs ?? DEFAULT_LOAD_LIMITS.queueTimeoutMs,
    requestTimeoutMs,
    // `/ready` speaks for the shared turns; a lane busy with readers is not a wedged server.
    stallMs: 0,
    log: (line) => logError(line, undefined),
  });
  const turns: MiddlewareHandler<ServerEnv> = (c, next) =>
    (largeAnswers.asks(c.req.method, c.req.path)
      ? largeAnswerLane
      : limiter
    ).middleware(c, next);
  // The body first, then a turn: a slow upload never holds a turn (body-reading.ts).
  const bodies = readBodies(
    bodyReading(
      options.bodyLimit,
      options.bodyTimeoutMs ?? (requestTimeoutMs || DEFAULT_BODY_TIMEOUT_MS),
      options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    ),
  );
  app.use("/v1/*", bodies);
  app.use("/v1/*", turns);
  if (auth) app.use("/v1/*", bearerAuth(auth));
  const mcp = options.mcp;
  if (mcp) {
    app.use("/mcp", bodies);
    app.use("/mcp", limiter.middleware);
    if (auth) app.use("/mcp", bearerAuth(auth));
    app.all("/mcp", (c) => mcp(c.req.raw, { manager, tenant: tenantOf(c) }));
  }

  app.openapi(health, (c) => c.json({ status: "ok" as const }, 200));
  readinessRoute(app, { manager }, limiter);
  const deps = {
    manager,
    largeAnswers,
    ...(options.idempotencyWaitMs !== undefined
      ? { idempotencyWaitMs: options.idempotencyWaitMs }
      : {}),
  };
  sessionRoutes(app, deps);
  historyRoutes(app, deps);
  messageRoutes(app, deps);
  compactionRoutes(app, deps);
  blockRoutes(app, deps);
  contextWindowRoutes(app, deps);
  searchRoutes(app, deps);
  transferRoutes(app, deps);
  eventRoutes(app, deps);

  if (auth) {
    app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
      type: "http",
      scheme: "bearer",
      description: "An Arbor API key: `Authorization: Bearer arbor_sk_…`",
    });
  }
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Arbor",
      version: "1",
      description:
        "Tree-structured conversation memory over HTTP (docs/server.md).",
    },
    ...(auth ? { security: [{ apiKey: [] }] } : {}),
  });
  return app;
}

// --- Internal helpers ---

/** The body limits of the `bodyLimit` option, per path. */
function bodyReading(
  given: CreateAppOptions["bodyLimit"],
  timeoutMs: number,
  budget: number,
): BodyReading {
  const limits =
    typeof given === "number"
      ? { api: given, import: given }
      : { ...DEFAULT_BODY_LIMIT, ...given };
  const isImport = (path: string) => path === "/v1/import";
  return {
    limit: (path) => (isImport(path) ? limits.import : limits.api),
    // A file over the limit imports through `arbor import`, which streams it from disk.
    hint: (path) =>
      isImport(path)
        ? "; import a larger file with `arbor import <file>`, which streams it with bounded memory"
        : "",
    timeoutMs,
    budget,
  };
}

/** The origins of the `cors` option; `*` stays `*`. */
function corsOrigins(given: CreateAppOptions["cors"]): string[] {
  if (given === undefined) return [];
  return (typeof given === "string" ? [given] : [...given]).filter(Boolean);
}

/** CORS for the given origins, with the headers Arbor's retries and streams use. */
function cors(origins: string[]): MiddlewareHandler<ServerEnv> {
  return corsMiddleware({
    origin: origins.includes("*") ? "*" : origins,
    allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    allowHeaders: [
      "Authorization",
      "Content-Type",
      "Idempotency-Key",
      "Last-Event-ID",
    ],
    exposeHeaders: [
      "Retry-After",
      "Idempotent-Replayed",
      "Content-Disposition",
    ],
    maxAge: 600,
  });
}

function defaultLogger(message: string, error: unknown): void {
  if (error === undefined) console.error(message);
  else console.error(message, error);
}
