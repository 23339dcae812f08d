import type { ObjectSchema } from "../arguments.js";
import { MAX_PAGE_SIZE, type McpScope } from "../scope.js";

/** The MCP tool annotations (hints a client shows or acts on, e.g. asking before a destructive call). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** Every tool works on this store only: never the open world. */
  openWorldHint: false;
}

/** What a tool answers: the data (`structuredContent`) and its compact text rendering. */
export interface ToolAnswer {
  structured: Record<string, unknown>;
  text: string;
}

/** One tool: its published contract and what it does. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: ObjectSchema;
  annotations: ToolAnnotations;
  run(scope: McpScope, args: Map<string, unknown>): Promise<ToolAnswer>;
}

/** `limit`, as every listing tool declares it. */
export function limitProperty(fallback: number) {
  return {
    type: "integer" as const,
    description: `How many items at most (1-${MAX_PAGE_SIZE}, default ${fallback}); the answer also stops at its token budget`,
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
  };
}

export const CURSOR_PROPERTY = {
  type: "string" as const,
  description:
    "nextCursor from the previous answer, for the next page; omit for the first",
  minLength: 1,
};

export const SESSION_ID_PROPERTY = {
  type: "string" as const,
  description: "A session id, as list_sessions and search_memory return them",
  minLength: 1,
};

/** Typed reads of checked arguments. */
export function stringArgument(
  args: Map<string, unknown>,
  name: string,
): string | undefined {
  const value = args.get(name);
  return typeof value === "string" ? value : undefined;
}

export function numberArgument(
  args: Map<string, unknown>,
  name: string,
): number | undefined {
  const value = args.get(name);
  return typeof value === "number" ? value : undefined;
}

export function listArgument(
  args: Map<string, unknown>,
  name: string,
): string[] | undefined {
  const value = args.get(name);
  return Array.isArray(value) ? value.map(String) : undefined;
}
