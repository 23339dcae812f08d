import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { bodyLimit as limitBody } from "hono/body-limit";
import type { MiddlewareHandler } from "hono";
import type { CompactionFunction } from "../session/compaction/session-compaction.js";
import type { SessionManager } from "../session/manager/session-manager.js";
import type { KeyVerifier } from "../session/contracts/api-keys.js";
import { bearerAuth } from "./auth/bearer-auth.js";
import { tenantOf, type ServerEnv } from "./context.js";
import { errorResponse, handleError, type ErrorLogger } from "./errors.js";
import { eventRoutes } from "./events.js";
import type { McpEndpoint } from "./mcp-endpoint.js";
import { blockRoutes } from "./routes/blocks.js";
import { compactionRoutes } from "./routes/compactions.js";
import { historyRoutes } from "./routes/history.js";
import { messageRoutes } from "./routes/messages.js";
import { searchRoutes } from "./routes/search.js";
import { sessionRoutes } from "./routes/sessions.js";
import { transferRoutes } from "./routes/transfer.js";
import { json } from "./schemas/common.js";
import { validationHook } from "./validation.js";

/** Default body limits: imports carry whole files, every other body is small JSON. */
export const DEFAULT_BODY_LIMIT = {
  api: 1024 * 1024,
  import: 10 * 1024 * 1024,
};

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
  /** Receives unexpected (5xx) errors, never request headers. Default `console.error`. */
  logError?: ErrorLogger;
  /**
   * The Model Context Protocol endpoint to serve at `/mcp` (Streamable HTTP, stateless), behind
   * the same API keys as `/v1`: `mcpEndpoint()` from `arbor-memory/mcp` (docs/mcp.md). Without
   * it `/mcp` is not a route.
   */
  mcp?: McpEndpoint;
}

const health = createRoute({
  method: "get",
  path: "/health",
  tags: ["Server"],
  summary: "Liveness",
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
  app.onError(handleError(options.logError ?? defaultLogger));
  app.notFound((c) =>
    errorResponse(c, "NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`),
  );
  app.use("*", async (c, next) => {
    c.set("tenant", null);
    await next();
  });
  if (auth) app.use("/v1/*", bearerAuth(auth));
  app.use("/v1/*", bodyLimits(options.bodyLimit));
  const mcp = options.mcp;
  if (mcp) {
    if (auth) app.use("/mcp", bearerAuth(auth));
    app.use("/mcp", bodyLimits(options.bodyLimit));
    app.all("/mcp", (c) => mcp(c.req.raw, { manager, tenant: tenantOf(c) }));
  }

  app.openapi(health, (c) => c.json({ status: "ok" as const }, 200));
  const deps = { manager };
  sessionRoutes(app, deps);
  historyRoutes(app, deps);
  messageRoutes(app, deps);
  compactionRoutes(app, deps);
  blockRoutes(app, deps);
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

function bodyLimits(
  given: CreateAppOptions["bodyLimit"],
): MiddlewareHandler<ServerEnv> {
  const limits =
    typeof given === "number"
      ? { api: given, import: given }
      : { ...DEFAULT_BODY_LIMIT, ...given };
  const onError =
    (limit: number, hint: string) => (c: Parameters<MiddlewareHandler>[0]) =>
      errorResponse(
        c,
        "PAYLOAD_TOO_LARGE",
        `The request body is over this route's limit of ${sizeText(limit)}${hint}`,
      );
  const api = limitBody({
    maxSize: limits.api,
    onError: onError(limits.api, ""),
  });
  // A file over the limit imports through `arbor import`, which streams it from disk.
  const imports = limitBody({
    maxSize: limits.import,
    onError: onError(
      limits.import,
      "; import a larger file with `arbor import <file>`, which streams it with bounded memory",
    ),
  });
  return (c, next) => (c.req.path === "/v1/import" ? imports : api)(c, next);
}

/** Bytes as people read them: `10 MiB`, `512 KiB`, `900 bytes`. */
function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0)
    return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function defaultLogger(message: string, error: unknown): void {
  console.error(message, error);
}
