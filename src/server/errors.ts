import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { isArborError } from "../session/errors/index.js";
import type { ArborErrorCode } from "../session/errors/index.js";
import {
  isStorageFault,
  type OutageLog,
} from "./reliability/storage-faults.js";

/** Seconds a 503 asks the client to wait before retrying (`Retry-After`). */
export const RETRY_AFTER_SECONDS = 1;

/** Codes the server adds to Arbor's own: request shape, authentication and transport. */
export type ServerErrorCode =
  | "INVALID_REQUEST"
  | "INVALID_JSON"
  | "UNAUTHORIZED"
  | "NOT_FOUND"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "IDEMPOTENCY_KEY_REUSED"
  | "IDEMPOTENCY_IN_PROGRESS"
  | "FORBIDDEN_ORIGIN"
  | "FORBIDDEN_HOST"
  | "OVERLOADED"
  | "REQUEST_TIMEOUT"
  | "BODY_TIMEOUT"
  | "SHUTTING_DOWN"
  | "INTERNAL";

/** Every error answer: `{ error: { code, message } }`. */
export interface ErrorBody {
  error: { code: ArborErrorCode | ServerErrorCode; message: string };
}

/**
 * The one map from error codes to HTTP statuses. `SESSION_FORBIDDEN` answers exactly like
 * `SESSION_NOT_FOUND` (see `errorBody`), so a foreign session cannot be told from a missing one.
 */
export const STATUS_BY_CODE: Readonly<
  Record<ArborErrorCode | ServerErrorCode, ContentfulStatusCode>
> = {
  INVALID_REQUEST: 400,
  INVALID_JSON: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN_ORIGIN: 403,
  FORBIDDEN_HOST: 403,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  METADATA_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_IN_PROGRESS: 409,
  INTERNAL: 500,
  OVERLOADED: 503,
  REQUEST_TIMEOUT: 503,
  BODY_TIMEOUT: 408,
  SHUTTING_DOWN: 503,
  INVALID_MESSAGE: 400,
  INVALID_ARGUMENT: 400,
  INVALID_SNAPSHOT: 400,
  INVALID_IMPORT: 400,
  EMPTY_CONTEXT: 400,
  BLOCK_LABEL_RESERVED: 400,
  BLOCK_TOO_LARGE: 400,
  SESSION_NOT_FOUND: 404,
  SESSION_FORBIDDEN: 404,
  MESSAGE_NOT_FOUND: 404,
  BLOCK_NOT_FOUND: 404,
  BLOCK_VERSION_NOT_FOUND: 404,
  SESSION_EXISTS: 409,
  MESSAGE_EXISTS: 409,
  BLOCK_EXISTS: 409,
  BLOCK_READONLY: 409,
  BLOCK_KEYED: 409,
  COMPACTION_NOT_CONFIGURED: 409,
  WRITE_CONFLICT: 409,
  NOT_SUPPORTED: 501,
  STORAGE_UNAVAILABLE: 503,
  STORAGE_ERROR: 500,
  INVALID_TARGET: 500,
  SESSION_ALREADY_INITIALIZED: 500,
  SCHEMA_VERSION: 500,
  SCHEMA_MISSING: 500,
  MISSING_DEPENDENCY: 500,
};

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
