import type { MiddlewareHandler } from "hono";
import type { ServerEnv } from "../context.js";
import { errorResponse } from "../errors.js";

/** How many requests run at once, how many may wait for a turn and for how long, and how long one may run. */
export interface LoadLimits {
  maxInFlight: number;
  maxQueued: number;
  queueTimeoutMs: number;
  requestTimeoutMs: number;
}

/**
 * Bounds the work in progress instead of letting it pile up: at most `maxInFlight` requests run
 * (they hold connections, bodies and answers); up to `maxQueued` more wait for a turn, first come
 * first served, before their body is read, so waiting costs little; a request that finds the
 * queue full, or waits longer than `queueTimeoutMs`, answers 503 `OVERLOADED`. One running past
 * `requestTimeoutMs` answers 503 `REQUEST_TIMEOUT`, but keeps its turn until its work really
 * ends, since it still holds a connection and memory; whether it committed is unknown to the
 * client, which retries with the same message id or `Idempotency-Key`.
 */
export function loadLimits(limits: LoadLimits): MiddlewareHandler<ServerEnv> {
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  /** Resolves true with a turn, or false when none came in time. */
  const turn = (): Promise<boolean> | boolean => {
    if (!(limits.maxInFlight > 0) || running < limits.maxInFlight) {
      running++;
      return true;
    }
    if (waiting.length >= limits.maxQueued) return false;
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(wake), 1);
        resolve(false);
      }, limits.queueTimeoutMs);
      waiting.push(wake);
    });
  };
  return async (c, next) => {
    if (!(await turn())) {
      return errorResponse(
        c,
        "OVERLOADED",
        `The server is running ${running} requests and ${waiting.length} more wait: retry after the Retry-After delay`,
      );
    }
    const work = next().finally(() => {
      if (limits.maxInFlight > 0) release();
    });
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
