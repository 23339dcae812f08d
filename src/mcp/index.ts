/**
 * Arbor's memory over the Model Context Protocol (docs/mcp.md). Needs the optional peer
 * `@modelcontextprotocol/sdk@1`. `mcpEndpoint()` is the Streamable HTTP endpoint for
 * `createApp({ mcp })` (Node and Workers); the `arbor mcp` command serves stdio.
 *
 * @module arbor-memory/mcp
 */
export { mcpEndpoint, type McpEndpointOptions } from "./http.js";
export type { McpServerOptions } from "./server.js";
export {
  NOTES_SESSION_ID,
  NOTES_SESSION_NAME,
  notesSessionId,
} from "./notes-session.js";
export { DEFAULT_TOKEN_BUDGET, MAX_PAGE_SIZE } from "./scope.js";
