// Shared fixtures of the context spec files.
import type { SessionMessage } from "../../session/contracts/types.js";

export const SEP = "═".repeat(46);

export type ToolSet = Record<
  string,
  {
    description: string;
    execute(input: unknown, options?: { toolCallId?: string }): Promise<string>;
  }
>;

export function text(id: string, value: string): SessionMessage {
  return { id, role: "user", parts: [{ type: "text", text: value }] };
}

export function loadPart(
  callId: string,
  label: string,
  key: string,
  output: string,
) {
  return {
    type: "tool-load_context",
    toolCallId: callId,
    state: "output-available",
    input: { label, key },
    output,
  };
}

export function unloadPart(callId: string, label: string, key: string) {
  return {
    type: "tool-unload_context",
    toolCallId: callId,
    state: "output-available",
    input: { label, key },
    output: `Unloaded "${key}" from ${label}. Context reclaimed.`,
  };
}
