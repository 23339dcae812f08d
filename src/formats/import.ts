import type {
  SessionInfo,
  SessionSnapshot,
} from "../session/contracts/session-info.js";
import type { SessionManager } from "../session/manager/session-manager.js";
import type { ConversationTimes, ParsedConversation } from "./types.js";

/** Options of `importConversations()`. */
export interface ImportConversationsOptions {
  /** The owner of every imported session. */
  ownerId?: string;
  /** Keep the snapshots' session and overlay ids (default `false`: fresh ids, so a file imports twice). */
  keepIds?: boolean;
  /**
   * Called with the messages written so far and the total: once before the first write, then
   * after each conversation (a conversation's messages are written in one batch).
   */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Writes parsed conversations as sessions, all or nothing: each through
 * `manager.importSession()`, then its block versions, then the branch it was on. When any write
 * fails, the sessions this call created are deleted and the error is rethrown.
 *
 * Block versions (several `block` lines for one label) are written one by one, so the block's
 * history holds each; that needs the manager to configure that block (`withContext(label)`),
 * like any imported block content, which is otherwise dropped.
 */
export async function importConversations(
  manager: SessionManager,
  conversations: readonly ParsedConversation[],
  options: ImportConversationsOptions = {},
): Promise<SessionInfo[]> {
  const total = conversations.reduce(
    (sum, item) => sum + item.snapshot.messages.length,
    0,
  );
  const created: SessionInfo[] = [];
  let done = 0;
  options.onProgress?.(0, total);
  try {
    for (const conversation of conversations) {
      const parent =
        conversation.parentIndex === undefined
          ? undefined
          : created[conversation.parentIndex]?.id;
      const info = await manager.importSession(
        prepare(conversation, options.keepIds === true, parent),
        {
          newId: options.keepIds !== true,
          ...(options.ownerId !== undefined
            ? { ownerId: options.ownerId }
            : {}),
          name: conversation.title,
        },
      );
      created.push(info);
      await writeBlockVersions(
        manager,
        info.id,
        conversation.blockVersions ?? {},
      );
      await restoreActiveLeaf(manager, info.id, conversation.activeLeafId);
      done += conversation.snapshot.messages.length;
      options.onProgress?.(done, total);
    }
  } catch (error) {
    for (const info of created)
      await manager.delete(info.id).catch(() => false);
    throw error;
  }
  return Promise.all(
    created.map(async (info) => (await manager.get(info.id)) ?? info),
  );
}

// --- Internal helpers ---

/** The snapshot to write: fresh overlay ids unless ids are kept (they are unique per store), versioned blocks apart. */
function prepare(
  conversation: ParsedConversation,
  keepIds: boolean,
  parentSessionId: string | undefined,
): SessionSnapshot {
  const { snapshot, blockVersions = {}, times } = conversation;
  const contextBlocks = Object.fromEntries(
    Object.entries(snapshot.contextBlocks ?? {}).filter(
      ([label]) => !(label in blockVersions),
    ),
  );
  return {
    ...snapshot,
    compactions: keepIds
      ? snapshot.compactions
      : snapshot.compactions.map((compaction) => ({
          ...compaction,
          id: crypto.randomUUID(),
        })),
    contextBlocks,
    // The conversation's own times become the session's (a row of its own keeps its times).
    ...(snapshot.info === undefined &&
    (times !== undefined || parentSessionId !== undefined)
      ? {
          info: sourceInfo(
            snapshot.sessionId,
            conversation.title,
            times,
            parentSessionId,
          ),
        }
      : {}),
  };
}

/** A registry row for a conversation from another tool: its times, nothing used yet. */
function sourceInfo(
  id: string,
  name: string,
  times: ConversationTimes | undefined,
  parentSessionId: string | undefined,
): SessionInfo {
  const now = new Date().toISOString();
  return {
    id,
    name,
    parent_session_id: parentSessionId ?? null,
    model: null,
    source: null,
    input_tokens: 0,
    output_tokens: 0,
    estimated_cost: 0,
    end_reason: null,
    created_at: times?.createdAt ?? now,
    updated_at: times?.updatedAt ?? now,
  };
}

async function writeBlockVersions(
  manager: SessionManager,
  sessionId: string,
  blockVersions: Record<string, string[]>,
): Promise<void> {
  const labels = Object.keys(blockVersions);
  if (labels.length === 0) return;
  const session = manager.getSession(sessionId);
  await session.loadContext();
  for (const label of labels) {
    if (!session.getContextBlock(label)?.writable) continue;
    for (const content of blockVersions[label]!)
      await session.replaceContextBlock(label, content);
  }
}

async function restoreActiveLeaf(
  manager: SessionManager,
  sessionId: string,
  activeLeafId: string | null,
): Promise<void> {
  if (activeLeafId === null) return;
  const session = manager.getSession(sessionId);
  if ((await session.getLatestLeaf())?.id !== activeLeafId)
    await session.switchBranch(activeLeafId);
}
