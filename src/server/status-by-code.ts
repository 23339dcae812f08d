import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ArborErrorCode } from "../session/errors/index.js";

/*
 * The HTTP status of every error code, apart from the server so that every HTTP surface reads
 * it (the server's error handler, `arbor-memory/ai-sdk`'s chat routes) without loading Hono:
 * one table, so a code cannot answer 503 on one surface and 500 on another.
 */

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
