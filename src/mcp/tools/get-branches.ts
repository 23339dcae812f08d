import { fitPrefix } from "../budget.js";
import { messageText, isoTime, oneLine } from "../message-text.js";
import { openScopedSession, requireMessage } from "../scope.js";
import {
  SESSION_ID_PROPERTY,
  stringArgument,
  type ToolDefinition,
} from "./tool.js";

const NAME = "get_branches";

interface BranchItem {
  id: string;
  role: string;
  createdAt: string | null;
  preview: string;
  /** On the path the active branch reads (compaction summaries applied). */
  onActiveBranch: boolean;
}

export const getBranchesTool: ToolDefinition = {
  name: NAME,
  description:
    'The branches at a message: its children, oldest first (a regenerated answer or an edited message adds one). Read one with read_conversation { sessionId, leafId }. Example: { "sessionId": "…", "messageId": "u3" }.',
  inputSchema: {
    type: "object",
    properties: {
      sessionId: SESSION_ID_PROPERTY,
      messageId: {
        type: "string",
        description: "The message whose children to list",
        minLength: 1,
      },
    },
    required: ["sessionId", "messageId"],
    additionalProperties: false,
  },
  annotations: {
    title: "Branches at a message",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: async (scope, args) => {
    const sessionId = stringArgument(args, "sessionId")!;
    const messageId = stringArgument(args, "messageId")!;
    const { session } = await openScopedSession(scope, sessionId);
    await requireMessage(session, sessionId, messageId);
    const [children, active] = await Promise.all([
      session.getBranches(messageId),
      session.getHistory(),
    ]);
    const activeIds = new Set(active.map((message) => message.id));
    const items: BranchItem[] = children.slice(0, 100).map((child) => ({
      id: child.id,
      role: child.role,
      createdAt: isoTime(child.createdAt),
      preview: oneLine(messageText(child), 200),
      onActiveBranch: activeIds.has(child.id),
    }));
    const shown = items.slice(
      0,
      fitPrefix(items, scope.tokenBudget - 100, (branches) => ({ branches })),
    );
    const structured = {
      sessionId,
      messageId,
      total: children.length,
      branches: shown,
    };
    const text =
      shown.length === 0
        ? `Message ${messageId} has no children: it is a leaf.`
        : [
            `${children.length} branch${children.length === 1 ? "" : "es"} at ${messageId}${shown.length < children.length ? ` (first ${shown.length} shown)` : ""}:`,
            ...shown.map(
              (branch, index) =>
                `${index + 1}. ${branch.id} · ${branch.role}${branch.onActiveBranch ? " · active" : ""} · ${branch.preview}`,
            ),
          ].join("\n");
    return { structured, text };
  },
};
