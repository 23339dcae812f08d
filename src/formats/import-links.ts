import type { ImportIndex } from "../session/manager/import-index.js";
import type { ImportSource, ParsedConversation } from "./types.js";

/** A session an import created or found, with what links it to sessions of other files. */
export interface CreatedLink {
  conversation: ParsedConversation;
  sessionId: string;
  /** The session's hashed import identity. */
  key: string;
}

/**
 * Links sessions imported from different files: a subagent file's session to the session it
 * names (`parentSource`), whichever of the two was imported first. Runs once the import's writes
 * all succeeded, so a failed import links nothing. The child is remembered before its parent is
 * looked up, and a parent links the remembered children after it is recorded: of two imports
 * running at once, the second to finish sees the other.
 */
export async function linkAcrossFiles(
  index: ImportIndex,
  created: readonly CreatedLink[],
  keyOf: (source: ImportSource & { id: string }) => Promise<string>,
): Promise<void> {
  for (const { conversation, sessionId } of created) {
    const parent = conversation.parentSource;
    if (conversation.parentIndex !== undefined || !parent?.id) continue;
    const parentKey = await keyOf({ ...parent, id: parent.id });
    await index.rememberChild(parentKey, sessionId);
    const parentId = await index.findSession(parentKey);
    if (parentId !== null) await index.linkChildren(parentKey, parentId);
  }
  // One read spares a store that never saw a subagent file a look-up per imported session.
  if (created.length === 0 || !(await index.hasChildren())) return;
  for (const { sessionId, key } of created)
    await index.linkChildren(key, sessionId);
}
