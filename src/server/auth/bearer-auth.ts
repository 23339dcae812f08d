import type { MiddlewareHandler } from "hono";
import type { ServerEnv } from "../context.js";
import { errorResponse } from "../errors.js";
import type { KeyVerifier } from "../../session/contracts/api-keys.js";

/**
 * Sets the request's tenant from `Authorization: Bearer <key>`, or answers 401 `UNAUTHORIZED`.
 * The key is never logged or echoed.
 */
export function bearerAuth(
  verifier: KeyVerifier,
): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer[ \t]+(\S+)\s*$/i.exec(header);
    const tenant = match ? await verifier.verify(match[1]!) : null;
    if (typeof tenant !== "string" || tenant === "") {
      c.header("WWW-Authenticate", 'Bearer realm="arbor"');
      return errorResponse(c, "UNAUTHORIZED", "A valid API key is required");
    }
    c.set("tenant", tenant);
    await next();
  };
}
