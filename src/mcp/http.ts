import type { McpEndpoint } from "../server/mcp-endpoint.js";
import { loadMcpSdk } from "./sdk.js";
import { createMcpServer, type McpServerOptions } from "./server.js";

/** Options of `mcpEndpoint()`. */
export interface McpEndpointOptions extends McpServerOptions {
  /**
   * Browser origins allowed to call the endpoint (`"https://inspector.example"`). MCP clients are
   * not browsers and send no `Origin`; a request that carries one is refused (403) unless it is
   * listed, so a web page cannot reach a local server through DNS rebinding. Default: none.
   */
  allowedOrigins?: readonly string[];
}

/**
 * The Streamable HTTP endpoint `createApp({ mcp })` mounts at `/mcp`, in stateless mode: every
 * POST gets its own server and transport, and answers with JSON. Nothing is kept between
 * requests, so any number of server processes (or Worker isolates) can share the traffic. The
 * request's tenant, from its API key, is the owner it sees; without auth it sees every session.
 * The MCP SDK (an optional peer) is loaded by the first request: without it that request fails
 * with `MISSING_DEPENDENCY` and the install command.
 *
 * @example
 * ```ts
 * import { createApp } from "arbor-memory/server";
 * import { mcpEndpoint } from "arbor-memory/mcp";
 *
 * const app = createApp({ manager, auth: keys, mcp: mcpEndpoint() });
 * ```
 */
export function mcpEndpoint(options: McpEndpointOptions = {}): McpEndpoint {
  const allowedOrigins = new Set(options.allowedOrigins ?? []);
  return async (request, { manager, tenant }) => {
    // Stateless: no stream for server-initiated messages (GET) and no session to end (DELETE).
    if (request.method !== "POST") return methodNotAllowed();
    const origin = request.headers.get("origin");
    if (origin !== null && !allowedOrigins.has(origin))
      return forbiddenOrigin(origin);
    const sdk = await loadMcpSdk();
    const server = createMcpServer(sdk, manager, tenant, options);
    const transport = new sdk.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  };
}

// --- Internal helpers ---

function methodNotAllowed(): Response {
  return Response.json(
    {
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message:
          "Method not allowed: this stateless MCP endpoint takes POST only",
      },
      id: null,
    },
    { status: 405, headers: { Allow: "POST" } },
  );
}

function forbiddenOrigin(origin: string): Response {
  return Response.json(
    {
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message: `Origin ${origin} is not allowed: list it in mcpEndpoint({ allowedOrigins })`,
      },
      id: null,
    },
    { status: 403 },
  );
}
