import { ArborError, type ArborErrorOptions } from "./arbor-error.js";

/**
 * Thrown by `SessionManager.resume()` and owner checks. The message is the same whether the
 * session is missing or owned by someone else, so it never leaks existence; `code` tells them apart.
 */
export class SessionAccessError extends ArborError {
  constructor(
    code: "SESSION_NOT_FOUND" | "SESSION_FORBIDDEN",
    sessionId: string,
    options?: ArborErrorOptions,
  ) {
    super(code, `Session "${sessionId}" is not accessible`, options);
    this.name = "SessionAccessError";
  }
}
