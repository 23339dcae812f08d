/**
 * The MCP server over a SessionManager: the tools of `tools/`, the resources of
 * `resources.ts`, and one rule for failures: anything a call can get wrong (arguments, ids,
 * access, storage) comes back as a tool result with `isError`, never as a protocol error or a
 * crash. Transport-free: `stdio.ts` and `http.ts` connect it.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isArborError, type SessionManager } from "../session/index.js";
import { readArguments } from "./arguments.js";
import {
  listResources,
  readResource,
  RESOURCE_TEMPLATES,
} from "./resources.js";
import { DEFAULT_TOKEN_BUDGET, type McpScope } from "./scope.js";
import type { McpSdk } from "./sdk.js";
import { forgetTool } from "./tools/forget.js";
import { getBranchesTool } from "./tools/get-branches.js";
import { listSessionsTool } from "./tools/list-sessions.js";
import { readMemoryTool, updateMemoryTool } from "./tools/memory-blocks.js";
import { readConversationTool } from "./tools/read-conversation.js";
import { rememberTool } from "./tools/remember.js";
import { searchMemoryTool } from "./tools/search-memory.js";
import type { ToolDefinition } from "./tools/tool.js";

/** The package version the server reports in `initialize`. */
const SERVER_VERSION = "0.1.0";
/** The smallest budget that still holds one shortened item and its framing. */
const MIN_TOKEN_BUDGET = 200;

/** Every tool, in the order `tools/list` shows them. */
export const TOOLS: readonly ToolDefinition[] = [
  searchMemoryTool,
  listSessionsTool,
  readConversationTool,
  getBranchesTool,
  rememberTool,
  readMemoryTool,
  updateMemoryTool,
  forgetTool,
];

/** Options of the MCP server, over stdio and over HTTP. */
export interface McpServerOptions {
  /**
   * Tokens (estimated) one tool answer or resource read may take: lists stop early and hand
   * out a cursor, long texts are cut. Default 4,000; at least 200.
   */
  tokenBudget?: number;
}

/** Guidance the server gives the client at `initialize`. */
const INSTRUCTIONS = `Arbor is this user's long-term conversation memory: past conversations (imported from ChatGPT, Claude Code, Pi, Codex… or written by agents) stored as trees of branches, with compaction summaries and context blocks.
Start with search_memory for any question about what was said or decided before; read around a hit with read_conversation { sessionId, aroundMessageId }. Save what should outlive this conversation with remember. Every answer is bounded: follow nextCursor for more.`;

/**
 * An MCP server (SDK `McpServer`) answering for one scope: a manager and, when `ownerId` is not
 * `null`, the one owner whose sessions it sees.
 *
 * @internal The SDK's types stay out of the published declarations.
 */
export function createMcpServer(
  sdk: McpSdk,
  manager: SessionManager,
  ownerId: string | null,
  options: McpServerOptions = {},
): McpServer {
  const scope: McpScope = {
    manager,
    ownerId,
    tokenBudget: Math.max(
      MIN_TOKEN_BUDGET,
      options.tokenBudget ?? DEFAULT_TOKEN_BUDGET,
    ),
  };
  const {
    McpServer,
    CallToolRequestSchema,
    ListToolsRequestSchema,
    ListResourcesRequestSchema,
    ListResourceTemplatesRequestSchema,
    ReadResourceRequestSchema,
  } = sdk;
  const mcp = new McpServer(
    { name: "arbor", title: "Arbor memory", version: SERVER_VERSION },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  const server = mcp.server;
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map((tool) => ({
      name: tool.name,
      title: tool.annotations.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: tool.annotations,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(scope, request.params.name, request.params.arguments),
  );
  server.setRequestHandler(ListResourcesRequestSchema, (request) =>
    protocolErrors(sdk, () => listResources(scope, request.params?.cursor)),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: RESOURCE_TEMPLATES,
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) =>
    protocolErrors(sdk, async () => ({
      contents: [await readResource(scope, request.params.uri)],
    })),
  );
  return mcp;
}

/** Runs a tool; every failure becomes an `isError` result naming its code. @internal */
export async function callTool(
  scope: McpScope,
  name: string,
  given: unknown,
): Promise<CallToolResult> {
  const tool = TOOLS.find((candidate) => candidate.name === name);
  if (!tool) {
    return errorResult(
      "INVALID_ARGUMENT",
      `Unknown tool "${name}"; the tools are ${TOOLS.map((tool) => tool.name).join(", ")}`,
    );
  }
  try {
    const args = readArguments(tool.name, tool.inputSchema, given);
    const answer = await tool.run(scope, args);
    return {
      content: [{ type: "text", text: answer.text }],
      structuredContent: answer.structured,
    };
  } catch (error) {
    const { code, message } = describeError(error);
    return errorResult(code, message);
  }
}

// --- Internal helpers ---

function errorResult(code: string, message: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: `${code}: ${message}` }],
    structuredContent: { error: { code, message } },
  };
}

/**
 * The code and message a caller sees, read from the error's code only, as the HTTP server does:
 * each backend has given its driver's errors Arbor's codes (`STORAGE_UNAVAILABLE`,
 * `STORAGE_ERROR`, …). Another owner's session reads exactly like a missing one. An error without
 * Arbor's code (a custom provider's own, a bug) is `INTERNAL`, whatever its message says.
 */
function describeError(error: unknown): { code: string; message: string } {
  if (isArborError(error)) {
    const code =
      error.code === "SESSION_FORBIDDEN" ? "SESSION_NOT_FOUND" : error.code;
    return { code, message: error.message };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: "INTERNAL", message: `Unexpected failure: ${message}` };
}

/**
 * Resources have no `isError` result: their failures are JSON-RPC errors (invalid params for a bad
 * URI or an unknown id, internal for the store), never a crash. The error's `data` carries Arbor's
 * code and message as a tool's `structuredContent.error` does, and the message reads `CODE: …`.
 * A plain error with the JSON-RPC code, not the SDK's `McpError`, whose message already holds an
 * "MCP error -32602:" prefix the client adds a second time.
 */
async function protocolErrors<T>(
  { ErrorCode }: McpSdk,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const { code, message } = describeError(error);
    const kind =
      code === "STORAGE_ERROR" ||
      code === "STORAGE_UNAVAILABLE" ||
      code === "INTERNAL"
        ? ErrorCode.InternalError
        : ErrorCode.InvalidParams;
    throw Object.assign(new Error(`${code}: ${message}`), {
      code: kind,
      data: { code, message },
    });
  }
}
