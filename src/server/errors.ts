import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { isArborError } from "../session/errors/index.js";
import type { ArborErrorCode } from "../session/errors/index.js";
import {
  isStorageFault,
  type OutageLog,
} from "./reliability/storage-faults.js";
import {
  RETRY_AFTER_SECONDS,
  STATUS_BY_CODE,
  type ErrorBody,
  type ServerErrorCode,
} from "./status-by-code.js";

/** Receives unexpected errors (5xx); never the request's headers. Default: `console.error`. */
export type ErrorLogger = (message: string, error: unknown) => void;

/** An error answer with the mapped status; a 503 says when to retry (default 1 s). */
export function errorResponse(
  c: Context,
  code: ArborErrorCode | ServerErrorCode,
  message: string,
  retryAfterSeconds = RETRY_AFTER_SECONDS,
): Response {
  const status = STATUS_BY_CODE[code];
  // Every 503 is temporary: say when to come back.
  if (status === 503) c.header("Retry-After", String(retryAfterSeconds));
  const body: ErrorBody =
    code === "SESSION_FORBIDDEN"
      ? { error: { code: "SESSION_NOT_FOUND", message } }
      : { error: { code, message } };
  return c.json(body, status);
}

/**
 * The `app.onError` handler, which reads codes only (each backend has given its driver's errors
 * Arbor's codes): `STORAGE_UNAVAILABLE` is 503, logged once per outage; Arbor codes by the map;
 * transport errors by status; the rest 500 `INTERNAL`. A client error (4xx) logs nothing, a 501
 * one line, and only a fault of the server (500) its stack. A `STORAGE_ERROR` answer never
 * carries the driver's words (they may name tables or values); the log has them.
 * `startedAt` says when the request began (for the outage log).
 */
export function handleError(
  log: ErrorLogger,
  outage: OutageLog,
  startedAt: (c: Context) => number | undefined = () => undefined,
) {
  return (error: unknown, c: Context): Response => {
    if (isStorageFault(error)) {
      outage.failed(error, startedAt(c));
      return errorResponse(
        c,
        "STORAGE_UNAVAILABLE",
        "The storage is unavailable; retry after the Retry-After delay",
      );
    }
    if (isArborError(error) && error.code in STATUS_BY_CODE) {
      const status = STATUS_BY_CODE[error.code];
      // 501 is the client asking for what this server does not offer (semantic search without
      // embeddings): one line, worth an operator's look, but no stack; it is not a fault.
      if (status === 501)
        log(
          `[arbor] [server] ${routeOf(c)}: 501 ${error.code}: ${error.message.split("\n")[0]!.slice(0, 300)}`,
          undefined,
        );
      else if (status >= 500) log(`[arbor] [server] ${routeOf(c)}`, error);
      if (error.code === "STORAGE_ERROR")
        return errorResponse(
          c,
          "STORAGE_ERROR",
          "The storage failed; the server log has the details",
        );
      return errorResponse(c, error.code, error.message);
    }
    if (error instanceof HTTPException) return httpError(c, error);
    log(`[arbor] [server] unexpected error on ${routeOf(c)}`, error);
    return errorResponse(c, "INTERNAL", "Internal server error");
  };
}

// --- Internal helpers ---

/** Hono's own 4xx (malformed JSON, unsupported media type, body limits) in our shape. */
function httpError(c: Context, error: HTTPException): Response {
  switch (error.status) {
    case 400:
      return /json/i.test(error.message)
        ? errorResponse(c, "INVALID_JSON", "The request body is not valid JSON")
        : errorResponse(c, "INVALID_REQUEST", error.message || "Bad request");
    case 401:
      return errorResponse(c, "UNAUTHORIZED", "A valid API key is required");
    case 413:
      return errorResponse(
        c,
        "PAYLOAD_TOO_LARGE",
        "The request body is too large",
      );
    case 415:
      return errorResponse(
        c,
        "UNSUPPORTED_MEDIA_TYPE",
        "The request body must be application/json",
      );
    default:
      return error.status < 500
        ? errorResponse(c, "INVALID_REQUEST", error.message || "Bad request")
        : errorResponse(c, "INTERNAL", "Internal server error");
  }
}

/** Method and path, for logs: no query string (it may carry ids), no headers. */
function routeOf(c: Context): string {
  return `${c.req.method} ${c.req.path}`;
}
