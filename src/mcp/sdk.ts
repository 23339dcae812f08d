import { ArborError } from "../session/index.js";

/** The install command every "the MCP SDK is missing" message names. */
export const MCP_SDK_INSTALL = "npm install @modelcontextprotocol/sdk@1";

/** The parts of `@modelcontextprotocol/sdk` the server uses. @internal */
export type McpSdk = Awaited<ReturnType<typeof importSdk>>;

let loaded: Promise<McpSdk> | undefined;

/**
 * The MCP SDK, loaded on first use: it is an optional peer, so `arbor-memory/mcp` imports without
 * it and only serving MCP needs it. A Worker bundler inlines these imports like static ones.
 *
 * @throws ArborError `MISSING_DEPENDENCY` with the install command when it cannot be loaded.
 * @internal The SDK's types stay out of the published declarations.
 */
export function loadMcpSdk(): Promise<McpSdk> {
  loaded ??= importSdk().catch((error: unknown) => {
    loaded = undefined;
    throw sdkLoadError(error);
  });
  return loaded;
}

/** `MISSING_DEPENDENCY` naming the install command when the SDK is what failed to load. */
export function sdkLoadError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : "";
  if (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    message.includes("@modelcontextprotocol/sdk")
  ) {
    return new ArborError(
      "MISSING_DEPENDENCY",
      `[arbor] [mcp] MCP needs the optional peer dependency @modelcontextprotocol/sdk: ${MCP_SDK_INSTALL}`,
      { cause: error },
    );
  }
  return error;
}

// --- Internal helpers ---

/** @internal */
async function importSdk() {
  const [server, types, http] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/mcp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
  ]);
  return {
    McpServer: server.McpServer,
    WebStandardStreamableHTTPServerTransport:
      http.WebStandardStreamableHTTPServerTransport,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    ListResourcesRequestSchema: types.ListResourcesRequestSchema,
    ListResourceTemplatesRequestSchema:
      types.ListResourceTemplatesRequestSchema,
    ReadResourceRequestSchema: types.ReadResourceRequestSchema,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
  };
}
