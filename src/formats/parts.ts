import type {
  SessionMessage,
  SessionMessagePart,
} from "../session/contracts/types.js";
import { invalidImport } from "./import-error.js";

/** A text part, or nothing for blank text. */
export function textParts(text: string): SessionMessagePart[] {
  return text.trim() === "" ? [] : [{ type: "text", text }];
}

/** An AI SDK static tool part waiting for its output (`tool-<name>`, `input-available`). */
export function toolCallPart(
  name: string,
  toolCallId: string,
  input: unknown,
): SessionMessagePart {
  return { type: `tool-${name}`, toolCallId, state: "input-available", input };
}

/** A tool call's arguments: parsed JSON when they are JSON text, else as given. */
export function toolInput(argumentsValue: unknown): unknown {
  if (typeof argumentsValue !== "string") return argumentsValue ?? {};
  try {
    return JSON.parse(argumentsValue);
  } catch {
    return argumentsValue;
  }
}

/**
 * Pairs tool results with the tool parts of earlier assistant messages by call id, so a
 * result becomes the `output` of its call (AI SDK `output-available` / `output-error`).
 */
export class ToolCalls {
  private readonly parts = new Map<string, SessionMessagePart>();

  /** Remembers the tool parts of a message. */
  register(message: SessionMessage): void {
    for (const part of message.parts)
      if (typeof part.toolCallId === "string" && part.type.startsWith("tool-"))
        this.parts.set(part.toolCallId, part);
  }

  /** Sets the output of call `toolCallId`; throws naming `where` when no call has that id. */
  resolve(
    toolCallId: unknown,
    output: unknown,
    where: string,
    isError = false,
  ): void {
    const part =
      typeof toolCallId === "string" ? this.parts.get(toolCallId) : undefined;
    if (!part)
      throw invalidImport(
        where,
        `a tool result for ${JSON.stringify(toolCallId)}, which no earlier tool call has`,
      );
    if (isError) {
      part.state = "output-error";
      part.errorText =
        typeof output === "string" ? output : JSON.stringify(output);
    } else {
      part.state = "output-available";
      part.output = output;
    }
  }
}

/** The text of content that is a string or an array of `{type:"text", text}` blocks. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => {
      const item = block as { type?: unknown; text?: unknown };
      if (typeof item?.text === "string") return item.text;
      if (item?.type === "image" || item?.type === "image_url")
        return IMAGE_PLACEHOLDER;
      return "";
    })
    .filter((text) => text !== "")
    .join("\n");
}

/** Stands in for an image the formats carry by reference or as data Arbor does not import. */
export const IMAGE_PLACEHOLDER = "[image]";
