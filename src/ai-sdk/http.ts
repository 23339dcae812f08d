import { ArborError, ArborTypeError } from "../session/index.js";

/** HTTP statuses of the error codes a chat route can meet; anything else is a 500. */
const STATUS: Record<string, number> = {
  INVALID_ARGUMENT: 400,
  INVALID_MESSAGE: 400,
  EMPTY_CONTEXT: 400,
  SESSION_NOT_FOUND: 404,
  // Another owner's chat answers as a missing one: its existence does not leak.
  SESSION_FORBIDDEN: 404,
  MESSAGE_NOT_FOUND: 404,
  WRITE_CONFLICT: 409,
};

/** A JSON response. */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** `{ error: { code, message } }` with the code's status; unknown errors are rethrown. */
export function errorResponse(error: unknown): Response {
  if (error instanceof ArborError || error instanceof ArborTypeError) {
    const status = STATUS[error.code];
    if (status !== undefined) {
      const message =
        error.code === "SESSION_FORBIDDEN" || error.code === "SESSION_NOT_FOUND"
          ? "Chat not found"
          : error.message;
      const code =
        error.code === "SESSION_FORBIDDEN" ? "SESSION_NOT_FOUND" : error.code;
      return json({ error: { code, message } }, status);
    }
  }
  throw error;
}
