import type { SessionMessage } from "../session/contracts/types.js";
import { asRecord, invalidImport } from "./import-error.js";
import { parseJsonDocument } from "./json-text.js";
import {
  contentText,
  textParts,
  toolCallPart,
  toolInput,
  ToolCalls,
} from "./parts.js";
import type { SourceNode } from "./tree.js";
import { linearConversation, messageList } from "./linear.js";
import type { ParsedConversation } from "./types.js";

const ROLES = new Set(["system", "developer", "user", "assistant", "tool"]);

/**
 * Reads an OpenAI chat message array (or `{ messages }`) as one linear conversation. An
 * assistant's `tool_calls` become tool parts and the following `tool` messages their outputs;
 * `developer` becomes `system`. Ids are `message-1`, `message-2`, … in file order.
 */
export function parseOpenAiMessages(
  text: string,
  fileName?: string,
): ParsedConversation {
  const list = messageList(parseJsonDocument(text));
  const calls = new ToolCalls();
  const nodes: SourceNode[] = [];
  list.forEach((value, index) => {
    const where = `message ${index + 1}`;
    const item = asRecord(value);
    if (!item || typeof item.role !== "string" || !ROLES.has(item.role))
      throw invalidImport(
        where,
        'expected {role: "system"|"user"|"assistant"|"tool", content}',
      );
    if (item.role === "tool") {
      calls.resolve(
        item.tool_call_id,
        toolInput(contentText(item.content)),
        where,
      );
      nodes.push({
        id: `message-${index + 1}`,
        parentId: null,
        createdAt: "",
        message: null,
        where,
      });
      return;
    }
    const message: SessionMessage = {
      id: `message-${index + 1}`,
      role: item.role === "developer" ? "system" : item.role,
      parts: textParts(contentText(item.content)),
    };
    if (item.tool_calls !== undefined) {
      if (!Array.isArray(item.tool_calls))
        throw invalidImport(where, "`tool_calls` must be an array");
      for (const call of item.tool_calls) {
        const fn = asRecord(asRecord(call)?.function);
        const id = asRecord(call)?.id;
        if (!fn || typeof fn.name !== "string" || typeof id !== "string")
          throw invalidImport(
            where,
            "a tool call needs `id` and `function.name`",
          );
        message.parts.push(toolCallPart(fn.name, id, toolInput(fn.arguments)));
      }
      calls.register(message);
    }
    nodes.push({
      id: message.id,
      parentId: null,
      createdAt: "",
      message,
      where,
    });
  });
  return linearConversation(nodes, "openai", fileName);
}
