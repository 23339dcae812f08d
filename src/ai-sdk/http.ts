import { ArborError, ArborTypeError } from "../session/index.js";
import {
  RETRY_AFTER_SECONDS,
  STATUS_BY_CODE,
} from "../server/status-by-code.js";

/** A JSON response. */
export function json(
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/**
 * `{ error: { code, message } }` with the code's status, read from the server's table
 * (`STATUS_BY_CODE`), so a chat route and the HTTP API answer a code alike: a storage outage is
 * 503 with `Retry-After`, a storage failure 500 without the driver's words (they may name tables
 * or values; the log has them). Anything that is not Arbor's error, and `MISSING_DEPENDENCY`, is
 * rethrown.
 */
export function errorResponse(error: unknown): Response {
  if (!(error instanceof ArborError || error instanceof ArborTypeError))
    throw error;
  // A missing optional peer is the deployment's fault, not the request's: thrown where the route
  // is called, so the developer reads its install command at once rather than in a 500's log.
  if (error.code === "MISSING_DEPENDENCY") throw error;
  const status = STATUS_BY_CODE[error.code];
  switch (error.code) {
    case "SESSION_NOT_FOUND":
    case "SESSION_FORBIDDEN":
      // Another owner's chat answers as a missing one: its existence does not leak.
      return json(
        { error: { code: "SESSION_NOT_FOUND", message: "Chat not found" } },
        status,
      );
    case "STORAGE_UNAVAILABLE":
      console.warn(
        `[arbor] [ai-sdk] storage unavailable, answering 503: ${error.message.split("\n")[0]}`,
      );
      return json(
        {
          error: {
            code: error.code,
            message:
              "The storage is unavailable; retry after the Retry-After delay",
          },
        },
        status,
        { "retry-after": String(RETRY_AFTER_SECONDS) },
      );
    case "STORAGE_ERROR":
      console.error("[arbor] [ai-sdk] the storage failed", error);
      return json(
        {
          error: {
            code: error.code,
            message: "The storage failed; the server log has the details",
          },
        },
        status,
      );
    default:
      // A fault of the server (a missing schema or dependency): its stack is worth a look.
      if (status >= 500 && status !== 501)
        console.error("[arbor] [ai-sdk] chat route failed", error);
      return json(
        { error: { code: error.code, message: error.message } },
        status,
      );
  }
}
