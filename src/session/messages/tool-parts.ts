import type { SessionMessagePart } from "../contracts/types.js";

/**
 * The tool name of a tool part (docs/behavior/messages-and-tree.md): `toolName` when present (dynamic tools), otherwise
 * the suffix of a static AI SDK part type `tool-<name>`. `null` for parts that are not tool parts.
 */
export function toolNameOf(part: SessionMessagePart): string | null {
  if (typeof part.toolName === "string" && part.toolName !== "")
    return part.toolName;
  if (typeof part.type === "string" && part.type.startsWith("tool-"))
    return part.type.slice(5);
  return null;
}

/** True for AI SDK tool parts: `tool-<name>` and `dynamic-tool`. */
export function isToolPart(part: SessionMessagePart): boolean {
  return (
    part.type === "dynamic-tool" ||
    (typeof part.type === "string" && part.type.startsWith("tool-"))
  );
}
