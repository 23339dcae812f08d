import {
  ArborError,
  type ContextBlock,
  type Session,
} from "../../session/index.js";
import { fitPrefix, truncateText } from "../budget.js";
import { currentBlocks } from "../current-blocks.js";
import { isoTime } from "../message-text.js";
import { appendNote, notesSessionId } from "../notes-session.js";
import { openScopedSession, type McpScope } from "../scope.js";
import {
  SESSION_ID_PROPERTY,
  stringArgument,
  type ToolDefinition,
} from "./tool.js";

const LABEL_PROPERTY = {
  type: "string" as const,
  description: 'A block label, e.g. "memory"',
  minLength: 1,
};
const SESSION_PROPERTY = {
  ...SESSION_ID_PROPERTY,
  description: "The session whose blocks to use; default the notes session",
};
/** Versions of one block's history an answer lists at most (the newest). */
const MAX_VERSIONS = 20;

interface BlockItem {
  label: string;
  description: string | null;
  content: string;
  tokens: number;
  maxTokens: number | null;
  writable: boolean;
  truncated?: true;
}

export const readMemoryTool: ToolDefinition = {
  name: "read_memory",
  description:
    'Read the context blocks (the memory an agent keeps in its prompt, e.g. "memory") of a session, or of the notes session; with a label, that block and its recent versions, newest last. Example: { "label": "memory" }.',
  inputSchema: {
    type: "object",
    properties: { sessionId: SESSION_PROPERTY, label: LABEL_PROPERTY },
    additionalProperties: false,
  },
  annotations: {
    title: "Read memory blocks",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: async (scope, args) => {
    const sessionId = stringArgument(args, "sessionId");
    const label = stringArgument(args, "label");
    const { session, id } = await blockSession(scope, sessionId, false);
    const blocks = await currentBlocks(session);
    const budget = scope.tokenBudget - 150;
    if (label === undefined) {
      const items = blocks.map((block) => blockItem(block, budget / 2));
      const shown = items.slice(
        0,
        fitPrefix(items, budget, (list) => ({ blocks: list })),
      );
      return {
        structured: { sessionId: id, blocks: shown },
        text:
          shown.length === 0
            ? `Session ${id} has no context blocks.`
            : shown
                .map(
                  (block) =>
                    `## ${block.label}${block.writable ? "" : " (read-only)"} · ${block.tokens}${block.maxTokens ? `/${block.maxTokens}` : ""} tokens\n${block.content || "(empty)"}`,
                )
                .join("\n\n"),
      };
    }
    const block = requireBlock(blocks, label);
    const item = blockItem(block, budget / 2);
    const history = block.writable
      ? await session.getContextBlockHistory(label)
      : [];
    const recent = history.slice(-MAX_VERSIONS).map((version) => ({
      version: version.version,
      at: isoTime(version.at),
      source: version.source,
      content: truncateText(version.content, 200).text,
    }));
    // The newest versions are kept when the budget is short.
    recent.reverse();
    const kept = recent
      .slice(
        0,
        fitPrefix(recent, budget - (item.tokens + 50), (versions) => ({
          versions,
        })),
      )
      .reverse();
    const structured = {
      sessionId: id,
      block: item,
      versions: kept,
      totalVersions: history.length,
    };
    const text = [
      `## ${item.label}${item.writable ? "" : " (read-only)"}\n${item.content || "(empty)"}`,
      kept.length > 0
        ? `History (${history.length} version${history.length === 1 ? "" : "s"}, newest last):\n${kept.map((version) => `v${version.version} · ${version.at} · ${version.source}: ${version.content.replace(/\s+/g, " ")}`).join("\n")}`
        : "No recorded versions.",
    ].join("\n\n");
    return { structured, text };
  },
};

export const updateMemoryTool: ToolDefinition = {
  name: "update_memory",
  description:
    'Write a writable context block of a session (default the notes session): "replace" its content, or "append" to it. Every write is kept as a version (read_memory shows them). Example: { "label": "memory", "content": "Prefers trains.", "mode": "append" }.',
  inputSchema: {
    type: "object",
    properties: {
      label: LABEL_PROPERTY,
      content: {
        type: "string",
        description: "The new content, or the text to append",
        maxLength: 100_000,
      },
      mode: {
        type: "string",
        enum: ["replace", "append"],
        description: '"replace" the content, or "append" to it',
      },
      sessionId: SESSION_PROPERTY,
    },
    required: ["label", "content", "mode"],
    additionalProperties: false,
  },
  annotations: {
    title: "Update a memory block",
    readOnlyHint: false,
    // Every write adds a version and any version can be restored: nothing is lost.
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  run: async (scope, args) => {
    const label = stringArgument(args, "label")!;
    const content = stringArgument(args, "content")!;
    const mode = stringArgument(args, "mode")!;
    const { session, id } = await blockSession(
      scope,
      stringArgument(args, "sessionId"),
      true,
    );
    requireBlock(await session.loadContext(), label);
    const block =
      mode === "append"
        ? await session.appendContextBlock(label, content)
        : await session.replaceContextBlock(label, content);
    const history = await session.getContextBlockHistory(label);
    const item = blockItem(block, scope.tokenBudget - 200);
    const version = history.at(-1)?.version ?? null;
    return {
      structured: { sessionId: id, block: item, version },
      text: `Block "${label}" of ${id} is now version ${version ?? "?"} (${item.tokens} tokens):\n${item.content}`,
    };
  },
};

// --- Internal helpers ---

/**
 * The session whose blocks a call uses. The notes session is created only by a write; a read
 * of a notes session that does not exist yet shows the blocks empty and writes nothing.
 */
async function blockSession(
  scope: McpScope,
  sessionId: string | undefined,
  forWrite: boolean,
): Promise<{ session: Session; id: string }> {
  if (sessionId) {
    return {
      session: (await openScopedSession(scope, sessionId)).session,
      id: sessionId,
    };
  }
  const id = notesSessionId(scope.ownerId);
  if (await scope.manager.get(id))
    return { session: (await openScopedSession(scope, id)).session, id };
  if (forWrite) {
    await appendNote(scope.manager, scope.ownerId, {
      id: crypto.randomUUID(),
      role: "system",
      parts: [
        { type: "text", text: "Notes session created for memory blocks." },
      ],
      createdAt: new Date(),
    });
    return { session: (await openScopedSession(scope, id)).session, id };
  }
  return { session: scope.manager.getSession(id), id };
}

function requireBlock(blocks: ContextBlock[], label: string): ContextBlock {
  const block = blocks.find((block) => block.label === label);
  if (!block) {
    const known =
      blocks.map((block) => `"${block.label}"`).join(", ") || "none";
    throw new ArborError(
      "BLOCK_NOT_FOUND",
      `No context block "${label}" (this session has: ${known})`,
    );
  }
  return block;
}

function blockItem(block: ContextBlock, maxTokens: number): BlockItem {
  const cut = truncateText(block.content, Math.max(100, Math.floor(maxTokens)));
  return {
    label: block.label,
    description: block.description ?? null,
    content: cut.text,
    tokens: block.tokens,
    maxTokens: block.maxTokens ?? null,
    writable: block.writable,
    ...(cut.truncated ? { truncated: true as const } : {}),
  };
}
