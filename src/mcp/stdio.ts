import type { SessionManager } from "../session/index.js";
import { loadMcpSdk, sdkLoadError } from "./sdk.js";
import { createMcpServer, type McpServerOptions } from "./server.js";

/**
 * Serves the MCP server on this process's stdin/stdout (what `arbor mcp` runs) until the client
 * closes the stream. Resolves when the connection ends.
 */
export async function serveMcpStdio(
  manager: SessionManager,
  ownerId: string | null,
  options: McpServerOptions = {},
): Promise<void> {
  const sdk = await loadMcpSdk();
  const { StdioServerTransport } =
    await import("@modelcontextprotocol/sdk/server/stdio.js").catch(
      (error: unknown) => {
        throw sdkLoadError(error);
      },
    );
  const server = createMcpServer(sdk, manager, ownerId, options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  // The SDK's transport does not notice the end of stdin by itself.
  process.stdin.once("end", () => void server.close());
  await closed;
}
