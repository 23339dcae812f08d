import type { MiddlewareHandler } from "hono";
import type { ServerEnv } from "../context.js";
import { errorResponse } from "../errors.js";

/** Methods a browser sends without asking (no preflight) when they come with a simple body. */
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The content types a cross-origin page may send without a CORS preflight (an HTML form or a
 * no-cors `fetch`): a write carrying one is refused unless it comes from the server's own origin.
 */
const SIMPLE_TYPES = new Set([
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
]);

/** Host names that only this machine reaches; the port is free. */
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

export interface BrowserGuardOptions {
  /** Host names (or `name:port`) served besides the loopback names. */
  hosts: readonly string[];
  /** Origins CORS lets in: their writes are not cross-origin writes. */
  trustedOrigins: readonly string[];
}

/**
 * The guard of a server without API keys, where any request is trusted. A web page the user
 * opens can still send requests to it, so:
 * - the `Host` must be a loopback name or a configured one: a page on an attacker's DNS name
 *   that rebinds to 127.0.0.1 sends its own name as `Host` (403 `FORBIDDEN_HOST`);
 * - a write whose `Origin` is another origin, or whose `Sec-Fetch-Site` says another site, is
 *   refused (403 `FORBIDDEN_ORIGIN`), unless CORS trusts the origin;
 * - a write with a CORS-simple content type must come from the server's own origin (the studio),
 *   so an old browser that sends no `Origin` cannot post a form or a text body either.
 */
export function browserGuard(
  options: BrowserGuardOptions,
): MiddlewareHandler<ServerEnv> {
  const hosts = new Set(options.hosts.map((host) => host.toLowerCase()));
  const trusted = new Set(options.trustedOrigins);
  const trustsAll = trusted.has("*");
  return async (c, next) => {
    const url = new URL(c.req.url);
    const host = (c.req.header("host") ?? url.host).toLowerCase();
    if (!hostAllowed(host, hosts)) {
      return errorResponse(
        c,
        "FORBIDDEN_HOST",
        `This server answers only requests for localhost, 127.0.0.1 or [::1]${hosts.size > 0 ? ` or ${[...hosts].join(", ")}` : ""}; "${host.slice(0, 100)}" is not one of them`,
      );
    }
    if (READ_METHODS.has(c.req.method)) return next();
    const origin = c.req.header("origin");
    const ownOrigin = `${url.protocol}//${host}`;
    const sameOrigin =
      origin !== undefined
        ? origin === ownOrigin || trustsAll || trusted.has(origin)
        : c.req.header("sec-fetch-site") === "same-origin";
    const site = c.req.header("sec-fetch-site");
    const crossSite =
      origin !== undefined
        ? !sameOrigin
        : site === "cross-site" || site === "same-site";
    if (crossSite) {
      return errorResponse(
        c,
        "FORBIDDEN_ORIGIN",
        "Writes from another origin are refused by a server without API keys; allow the origin with CORS (--cors) or create an API key",
      );
    }
    const type = (c.req.header("content-type") ?? "")
      .split(";")[0]!
      .trim()
      .toLowerCase();
    if (SIMPLE_TYPES.has(type) && !sameOrigin) {
      return errorResponse(
        c,
        "FORBIDDEN_ORIGIN",
        `A write with Content-Type ${type} is accepted from the server's own pages only (a web form could send it); send application/json, or application/octet-stream for an import`,
      );
    }
    return next();
  };
}

// --- Internal helpers ---

function hostAllowed(host: string, configured: ReadonlySet<string>): boolean {
  if (configured.has(host)) return true;
  const name = host.startsWith("[")
    ? host.slice(0, host.indexOf("]") + 1)
    : host.replace(/:\d*$/, "");
  if (configured.has(name)) return true;
  return LOOPBACK_NAMES.has(name) || /^127\.\d+\.\d+\.\d+$/.test(name);
}
