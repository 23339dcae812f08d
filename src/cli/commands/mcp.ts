import { ArborError } from "../../session/index.js";
import {
  integerOption,
  STORE_OPTIONS,
  stringOption,
  UsageError,
  type CommandSpec,
} from "../args.js";
import { withStore } from "../session-data.js";

/** The install command every "the MCP SDK is missing" message names. */
export const MCP_SDK_INSTALL = "npm install @modelcontextprotocol/sdk@1";

/** `arbor mcp`: the memory as an MCP server on stdin/stdout, the form MCP clients launch. */
export const mcpCommand: CommandSpec = {
  name: "mcp",
  summary:
    "Serve the store to MCP clients (Claude, Cursor, VS Code…) over stdio.",
  usage: "[--owner <tenant>] [--db <file> | --postgres <url>]",
  positionals: { min: 0, max: 0 },
  details: `Speaks the Model Context Protocol on stdin/stdout until the client closes it; logs go
to stderr. Without --owner the client sees every session of the store (as the CLI does); with
it, only that tenant's, and its notes go to the session "arbor-notes-<tenant>".
Needs the optional peer: ${MCP_SDK_INSTALL}. Set-up for each client: docs/mcp.md.`,
  options: {
    owner: {
      type: "string",
      value: "tenant",
      description: "only this owner's (tenant's) sessions",
    },
    "token-budget": {
      type: "string",
      value: "n",
      description: "tokens one answer may take (default 4000, at least 200)",
    },
    ...STORE_OPTIONS,
  },
  run: async (command) => {
    const owner = stringOption(command, "owner");
    if (owner === "") throw new UsageError("--owner needs a tenant name");
    const tokenBudget = integerOption(command, "token-budget", 4_000);
    if (tokenBudget < 200)
      throw new UsageError(
        `--token-budget must be at least 200, got ${tokenBudget}`,
      );
    const { serveMcpStdio } = await loadMcp();
    await withStore(command, ({ manager }) =>
      serveMcpStdio(manager, owner ?? null, { tokenBudget }),
    );
  },
};

/** The MCP side of Arbor, which loads the optional peer `@modelcontextprotocol/sdk`. */
export async function loadMcp() {
  try {
    return await import("../../mcp/stdio.js");
  } catch (error) {
    throw missingSdk(error);
  }
}

/** `MISSING_DEPENDENCY` with the install command, when the SDK is what failed to load. */
export function missingSdk(error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
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
