import { asRecord, invalidImport } from "./import-error.js";
import {
  buildTree,
  conversationTimes,
  firstUserWords,
  type SourceNode,
} from "./tree.js";
import type { ImportFormat, ParsedConversation } from "./types.js";

/** The message array of `[…]` or `{ messages: […] }`. */
export function messageList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  const messages = asRecord(value)?.messages;
  if (Array.isArray(messages)) return messages;
  throw invalidImport(
    null,
    "expected an array of messages or { messages: [...] }",
  );
}

/**
 * Chains nodes in order (each the child of the previous kept one) and builds the conversation.
 * Nodes without a time get one a millisecond apart from now, which keeps their order.
 */
export function linearConversation(
  nodes: SourceNode[],
  format: ImportFormat,
  fileName: string | undefined,
): ParsedConversation {
  const start = Date.now();
  const timed = nodes.some((node) => node.createdAt !== "");
  let previous: string | null = null;
  const chained = nodes.map((node, index) => {
    const linked: SourceNode = {
      ...node,
      parentId: previous,
      createdAt: node.createdAt || new Date(start + index).toISOString(),
    };
    previous = node.id;
    return linked;
  });
  const tree = buildTree(chained);
  const messages = tree.messages;
  const now = new Date(start).toISOString();
  return {
    snapshot: {
      format: "arbor.session",
      version: 1,
      sessionId: crypto.randomUUID(),
      exportedAt: now,
      messages,
      compactions: [],
    },
    activeLeafId: tree.resolve(previous),
    title: firstUserWords(messages, fileName ?? "Imported chat"),
    format,
    // No id in these formats: the import hashes the content instead.
    source: { format, id: null },
    // Times the file gave are the conversation's; the import's own are not.
    ...(timed ? { times: conversationTimes(messages) } : {}),
  };
}
