import type { MiddlewareHandler } from "hono";
import type { ServerEnv } from "../context.js";
import { errorResponse } from "../errors.js";

/** How many requests run at once at most, and how long one may take before it answers 503. */
export interface LoadLimits {
  maxInFlight: number;
  requestTimeoutMs: number;
}

/**
 * Sheds load instead of queueing it: a request over `maxInFlight` answers 503 `OVERLOADED` at
 * once (so memory stays bounded however many clients wait), and one running past
 * `requestTimeoutMs` answers 503 `REQUEST_TIMEOUT`. A timed-out request keeps its slot until its
 * work really ends, since it still holds a connection and memory; whether it committed is
 * unknown to the client, which retries with the same message id or `Idempotency-Key`.
 */
export function loadLimits(limits: LoadLimits): MiddlewareHandler<ServerEnv> {
  let inFlight = 0;
  return async (c, next) => {
    if (limits.maxInFlight > 0 && inFlight >= limits.maxInFlight) {
      return errorResponse(
        c,
        "OVERLOADED",
        `The server is running ${inFlight} requests, its limit; retry after the Retry-After delay`,
      );
    }
    inFlight++;
    const work = next().finally(() => inFlight--);
    if (!(limits.requestTimeoutMs > 0)) return work;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), limits.requestTimeoutMs);
    });
    const outcome = await Promise.race([
      work.then(() => "done" as const),
      timedOut,
    ]);
    clearTimeout(timer);
    if (outcome === "done") return;
    // The handler's own answer, when it comes, goes nowhere; its failure is logged by onError.
    work.catch(() => undefined);
    return errorResponse(
      c,
      "REQUEST_TIMEOUT",
      `The request did not finish within ${limits.requestTimeoutMs} ms; it may still complete, so retry it the idempotent way (docs/server.md#retrying-writes)`,
    );
  };
}
