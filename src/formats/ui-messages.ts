import type { SessionMessage } from "../session/contracts/types.js";
import { asRecord } from "./import-error.js";
import { isoTime, parseJsonDocument } from "./json-text.js";
import { linearConversation, messageList } from "./linear.js";
import type { SourceNode } from "./tree.js";
import type { ParsedConversation } from "./types.js";

/**
 * Reads an AI SDK `UIMessage` array (or `{ messages }`) as one linear conversation. Messages are
 * kept verbatim; a `createdAt` (ISO string or epoch ms) becomes the stored time.
 */
export function parseUiMessages(
  text: string,
  fileName?: string,
): ParsedConversation {
  const nodes: SourceNode[] = messageList(parseJsonDocument(text)).map(
    (value, index) => {
      const message = (asRecord(value) ?? {}) as SessionMessage;
      return {
        id: typeof message.id === "string" ? message.id : "",
        parentId: null,
        createdAt: isoTime(message.createdAt, ""),
        message,
        where: `message ${index + 1}${typeof message.id === "string" ? ` ("${message.id}")` : ""}`,
      };
    },
  );
  return linearConversation(nodes, "ui-messages", fileName);
}
