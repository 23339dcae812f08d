import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { ServerDeps, ServerEnv } from "../context.js";
import { ArborError } from "../../session/errors/index.js";
import { errorResponse } from "../errors.js";
import { errors, json } from "../schemas/common.js";
import type { LoadLimiter } from "./load-limits.js";
import { declaredAnswer } from "../responses/declared-answer.js";

/** How long the readiness probe waits for the storage before it calls it unavailable. */
const PROBE_TIMEOUT_MS = 2_000;

export const ready = createRoute({
  method: "get",
  path: "/ready",
  tags: ["Server"],
  summary:
    "Readiness: the storage answers a query and request turns are being given back (a load balancer routes here only while it is 200)",
  responses: {
    200: json(
      z
        .object({ status: z.literal("ready"), storage: z.literal("ok") })
        .openapi("Ready"),
      "The storage answered",
    ),
    ...errors(503),
  },
});

/**
 * `GET /ready` answers 503 `OVERLOADED` while the load limiter is stalled (every turn held, none
 * given back for its `stallMs`: requests would only wait and fail here), else asks the storage
 * for one registry row. A storage failure goes through the app's error handler, so it answers
 * 503 `STORAGE_UNAVAILABLE` with `Retry-After` like any other request during an outage, and
 * counts toward the outage's one log line.
 */
export function readinessRoute(
  app: OpenAPIHono<ServerEnv>,
  deps: ServerDeps,
  limiter: LoadLimiter,
): void {
  app.openapi(ready, async (c) => {
    const stalled = limiter.stalled();
    if (stalled > 0)
      return declaredAnswer(
        errorResponse(
          c,
          "OVERLOADED",
          `Every request turn has been held for ${(stalled / 1000).toFixed(1)} s with none given back`,
        ),
      );
    await withTimeout(deps.manager.list({ limit: 1 }), PROBE_TIMEOUT_MS);
    return c.json({ status: "ready" as const, storage: "ok" as const }, 200);
  });
}

// --- Internal helpers ---

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ArborError(
            "STORAGE_UNAVAILABLE",
            `[arbor] [server] The storage did not answer the readiness probe within ${ms} ms`,
          ),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined);
  }
}
