import type { SessionManager } from "../session/manager/session-manager.js";

/**
 * What `createApp({ mcp })` mounts at `/mcp`: a function from a request (already past the API
 * key check) to its response. `mcpEndpoint()` of `arbor-memory/mcp` makes one; declared here so
 * the server entry needs nothing of the MCP SDK unless it is used.
 */
export type McpEndpoint = (
  request: Request,
  context: {
    manager: SessionManager;
    /** The tenant of the request's API key; `null` when the app runs without auth. */
    tenant: string | null;
  },
) => Promise<Response>;
