import {
  ArborError,
  isCompactionMessage,
  type Session,
  type SessionMessage,
} from "../../session/index.js";
import { invalid } from "../arguments.js";
import { tokensOf, truncateText } from "../budget.js";
import { cursorNumber, decodeCursor, encodeCursor } from "../cursor.js";
import { messageView, type MessageView } from "../message-text.js";
import { openScopedSession, requireMessage } from "../scope.js";
import {
  CURSOR_PROPERTY,
  limitProperty,
  numberArgument,
  SESSION_ID_PROPERTY,
  stringArgument,
  type ToolDefinition,
} from "./tool.js";

const NAME = "read_conversation";
const DEFAULT_LIMIT = 20;
/** Deepest descent from a message to the newest leaf under it. */
const MAX_DESCENT = 100_000;

export const readConversationTool: ToolDefinition = {
  name: NAME,
  description:
    'Read a window of one branch of a session, compaction summaries applied (a summary stands in for the messages it covers): the latest messages of the active branch by default, the branch ending at leafId, or the messages around aroundMessageId (e.g. a search_memory hit). Never the whole session: page with nextCursor (older) or newerCursor. Example: { "sessionId": "…", "aroundMessageId": "m42", "limit": 10 }.',
  inputSchema: {
    type: "object",
    properties: {
      sessionId: SESSION_ID_PROPERTY,
      leafId: {
        type: "string",
        description:
          "The message the branch ends at (get_branches lists them); default the active branch",
        minLength: 1,
      },
      aroundMessageId: {
        type: "string",
        description:
          "Center the window on this message (on the active branch, or on the newest branch through it)",
        minLength: 1,
      },
      limit: limitProperty(DEFAULT_LIMIT),
      cursor: CURSOR_PROPERTY,
    },
    required: ["sessionId"],
    additionalProperties: false,
  },
  annotations: {
    title: "Read a conversation",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: async (scope, args) => {
    const sessionId = stringArgument(args, "sessionId")!;
    const limit = numberArgument(args, "limit") ?? DEFAULT_LIMIT;
    const cursor = stringArgument(args, "cursor");
    const state = cursor ? decodeCursor(NAME, cursor) : null;
    const { session, info } = await openScopedSession(scope, sessionId);
    let leafId =
      typeof state?.leaf === "string"
        ? state.leaf
        : stringArgument(args, "leafId");
    const aroundId = state
      ? undefined
      : stringArgument(args, "aroundMessageId");
    if (leafId !== undefined) await requireMessage(session, sessionId, leafId);

    let path = await session.getHistory(leafId);
    // A summary found by search_memory is named by its overlay id; in a history it stands as a
    // message whose id ends with it.
    const indexOfAround = (messages: SessionMessage[]) =>
      messages.findIndex(
        (message) =>
          message.id === aroundId ||
          (isCompactionMessage(message) && message.id.endsWith(`_${aroundId}`)),
      );
    if (aroundId !== undefined && indexOfAround(path) === -1) {
      await requireMessage(session, sessionId, aroundId);
      if (leafId !== undefined)
        invalid(
          NAME,
          `message "${aroundId}" is not on the branch ending at "${leafId}"`,
        );
      leafId = await newestLeafUnder(session, aroundId);
      path = await session.getHistory(leafId);
      if (indexOfAround(path) === -1)
        throw new ArborError(
          "MESSAGE_NOT_FOUND",
          `Message "${aroundId}" is covered by a summary on its branch; read the branch without aroundMessageId to see the summary`,
        );
    }
    const total = path.length;
    const resolvedLeaf = leafId ?? path.at(-1)?.id ?? null;

    // The window [start, end) and the side the budget trims first.
    let start: number;
    let end: number;
    let keep: "end" | "start" | "center";
    let center = 0;
    if (state) {
      const at = Math.min(cursorNumber(NAME, state, "at"), total);
      if (state.dir === "newer") {
        start = at;
        end = Math.min(total, at + limit);
        keep = "start";
      } else {
        end = at;
        start = Math.max(0, at - limit);
        keep = "end";
      }
    } else if (aroundId !== undefined) {
      center = indexOfAround(path);
      start = Math.max(
        0,
        Math.min(center - Math.floor(limit / 2), total - limit),
      );
      end = Math.min(total, start + limit);
      keep = "center";
    } else {
      end = total;
      start = Math.max(0, total - limit);
      keep = "end";
    }
    const window = fitWindow(
      path,
      start,
      end,
      keep,
      center,
      scope.tokenBudget - 150,
    );
    const messages = window.messages;
    const olderCursor =
      window.start > 0
        ? encodeCursor(NAME, {
            leaf: resolvedLeaf,
            dir: "older",
            at: window.start,
          })
        : null;
    const newerCursor =
      window.end < total
        ? encodeCursor(NAME, {
            leaf: resolvedLeaf,
            dir: "newer",
            at: window.end,
          })
        : null;
    const structured = {
      sessionId,
      sessionName: info.name,
      leafId: resolvedLeaf,
      total,
      from: window.start,
      to: window.end,
      messages,
      nextCursor: olderCursor,
      newerCursor,
    };
    return { structured, text: render(structured) };
  },
};

// --- Internal helpers ---

/** Follows the newest child from `messageId` down to a leaf. */
async function newestLeafUnder(
  session: Session,
  messageId: string,
): Promise<string> {
  let current = messageId;
  for (let depth = 0; depth < MAX_DESCENT; depth++) {
    const children = await session.getBranches(current);
    const newest = children.at(-1);
    if (!newest) return current;
    current = newest.id;
  }
  return current;
}

/**
 * Shrinks [start, end) until its messages fit `budget` tokens, dropping from the side away from
 * what the reader asked for (the newest end, the oldest end, or the centre). Long messages are
 * cut first, so a window holds at least one message, shortened if it must be.
 */
function fitWindow(
  path: SessionMessage[],
  start: number,
  end: number,
  keep: "end" | "start" | "center",
  center: number,
  budget: number,
): { start: number; end: number; messages: MessageView[] } {
  const perMessage = Math.max(100, Math.floor(budget / 2));
  const views = new Map<number, MessageView>();
  const view = (index: number) => {
    let found = views.get(index);
    if (!found) {
      found = messageView(path[index]!);
      const cut = truncateText(found.text, perMessage);
      if (cut.truncated) found = { ...found, text: cut.text, truncated: true };
      views.set(index, found);
    }
    return found;
  };
  const slice = () => {
    const out: MessageView[] = [];
    for (let index = start; index < end; index++) out.push(view(index));
    return out;
  };
  while (end - start > 1 && tokensOf(slice()) > budget) {
    if (keep === "end") start++;
    else if (keep === "start") end--;
    else if (center - start > end - 1 - center) start++;
    else end--;
  }
  return { start, end, messages: slice() };
}

function render(answer: {
  sessionId: string;
  sessionName: string;
  leafId: string | null;
  total: number;
  from: number;
  to: number;
  messages: MessageView[];
  nextCursor: string | null;
  newerCursor: string | null;
}): string {
  const head = `${answer.sessionName} (${answer.sessionId}), branch ending at ${answer.leafId ?? "(empty)"}: messages ${answer.total === 0 ? 0 : answer.from + 1}-${answer.to} of ${answer.total}`;
  const body = answer.messages.map(
    (message) =>
      `── ${message.kind === "summary" ? "summary" : message.role} · ${message.id}${message.createdAt ? ` · ${message.createdAt}` : ""}\n${message.text}`,
  );
  const tail: string[] = [];
  if (answer.nextCursor) tail.push(`Older: cursor "${answer.nextCursor}".`);
  if (answer.newerCursor) tail.push(`Newer: cursor "${answer.newerCursor}".`);
  return [head, ...body, ...tail].join("\n\n");
}
