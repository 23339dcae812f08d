import { loadMcpSdk, MCP_SDK_INSTALL } from "../../mcp/sdk.js";
import {
  integerOption,
  STORE_OPTIONS,
  stringOption,
  UsageError,
  type CommandSpec,
} from "../args.js";
import { withStore } from "../session-data.js";

/** `arbor mcp`: the memory as an MCP server on stdin/stdout, the form MCP clients launch. */
export const mcpCommand: CommandSpec = {
  name: "mcp",
  summary:
    "Serve the store to MCP clients (Claude, Cursor, VS Code…) over stdio.",
  usage:
    "[--owner <tenant>] [--token-budget <n>] [--db <file> | --postgres <url>]",
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
    // A missing SDK is reported before the store is opened.
    await loadMcpSdk();
    const { serveMcpStdio } = await import("../../mcp/stdio.js");
    await withStore(command, ({ manager }) =>
      serveMcpStdio(manager, owner ?? null, { tokenBudget }),
    );
  },
};
