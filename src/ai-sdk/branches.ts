import {
  ArborError,
  isCompactionMessage,
  type Session,
  type SessionManager,
  type SessionMessage,
} from "../session/index.js";
import { parentOf } from "../agent/branches.js";
import type { ChatBranchInfo, ChatBranchView } from "./types.js";

/** The session metadata key that lists a chat's root messages (an edited first message adds one). */
export const ROOTS_METADATA = "ai-sdk.roots";

/** Records `id` as a root of the chat, when it is one. */
export async function noteRoot(
  manager: SessionManager,
  sessionId: string,
  session: Session,
  id: string,
): Promise<void> {
  if ((await session.getPathLength(id)) !== 1) return;
  const roots = await rootsOf(manager, sessionId);
  if (roots.includes(id)) return;
  await manager.setMetadata(
    sessionId,
    ROOTS_METADATA,
    JSON.stringify([...roots, id]),
  );
}

/**
 * The active branch as `useChat` shows it, with the siblings of each message for the "← 2/3 →"
 * switcher. Compaction summaries are left out: the UI shows the messages themselves.
 */
export async function branchView(
  manager: SessionManager,
  sessionId: string,
  session: Session,
): Promise<ChatBranchView> {
  const history = await session.getHistory();
  const messages = history.filter((message) => !isCompactionMessage(message));
  const branches: Record<string, ChatBranchInfo> = {};
  let previous: string | null = null;
  for (const message of history) {
    if (!isCompactionMessage(message)) {
      const siblings =
        previous === null
          ? await rootsWith(manager, sessionId, message.id)
          : (await session.getBranches(previous)).map((child) => child.id);
      if (siblings.length > 1)
        branches[message.id] = {
          siblings,
          index: Math.max(0, siblings.indexOf(message.id)),
        };
    }
    previous = message.id;
  }
  // A message right after a compaction summary: its siblings are under the summary's last message.
  for (const message of messages) {
    if (branches[message.id] || history[0]?.id === message.id) continue;
    const index = history.findIndex((entry) => entry.id === message.id);
    if (!isCompactionMessage(history[index - 1] ?? { id: "" })) continue;
    const parent = await parentOf(session, message.id);
    if (parent === null) continue;
    const siblings = (await session.getBranches(parent)).map((c) => c.id);
    if (siblings.length > 1)
      branches[message.id] = { siblings, index: siblings.indexOf(message.id) };
  }
  return { id: sessionId, messages, branches };
}

/**
 * Makes the branch through `messageId` the active one: it ends at the newest leaf below it (the
 * answer last written there), so switching back and forth returns to the same conversation.
 */
export async function switchToMessage(
  session: Session,
  messageId: string,
): Promise<void> {
  if ((await session.getMessage(messageId)) === null)
    throw new ArborError(
      "MESSAGE_NOT_FOUND",
      `[arbor] [ai-sdk] No message "${messageId}" in this chat`,
    );
  let leaf = messageId;
  for (;;) {
    const children: SessionMessage[] = await session.getBranches(leaf);
    const newest = children.at(-1);
    if (!newest) break;
    leaf = newest.id;
  }
  await session.switchBranch(leaf);
}

// --- Internal helpers ---

async function rootsOf(
  manager: SessionManager,
  sessionId: string,
): Promise<string[]> {
  const raw = await manager.getMetadata(sessionId, ROOTS_METADATA);
  if (raw === null) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed)
      ? parsed.filter((id): id is string => typeof id === "string")
      : [];
  } catch {
    return [];
  }
}

async function rootsWith(
  manager: SessionManager,
  sessionId: string,
  id: string,
): Promise<string[]> {
  const roots = await rootsOf(manager, sessionId);
  return roots.includes(id) ? roots : [id, ...roots];
}
