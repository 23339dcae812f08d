import type {
  SessionInfo,
  SessionSnapshot,
} from "../session/contracts/session-info.js";
import {
  IMPORT_KEY_METADATA,
  IMPORTED_AT_METADATA,
} from "../session/manager/import-index.js";
import type { SessionManager } from "../session/manager/session-manager.js";
import { linkAcrossFiles, type CreatedLink } from "./import-links.js";
import type {
  ConversationTimes,
  ImportSource,
  ParsedConversation,
} from "./types.js";

/** What an import does with a conversation it imported before (same source, same owner). */
export type ExistingConversation = "skip" | "replace" | "update";

/** Options of `importConversations()`. */
export interface ImportConversationsOptions {
  /** The owner of every imported session. */
  ownerId?: string;
  /** Keep the snapshots' session and overlay ids (default `false`: fresh ids). */
  keepIds?: boolean;
  /**
   * A conversation imported before into a session of the same owner: `"skip"` it (default),
   * `"replace"` that session with a new one, or `"update"` it (the messages it lacks are added;
   * none is written twice).
   */
  existing?: ExistingConversation;
  /**
   * Import a conversation whose earlier session was erased (`manager.erase()`); by default it is
   * skipped, so an erased conversation does not come back with the next import of the file.
   */
  restoreErased?: boolean;
  /**
   * Called with the messages written so far and the total: once before the first write, then
   * after each conversation (a conversation's messages are written in one batch).
   */
  onProgress?: (done: number, total: number) => void;
}

/** What `importConversationsWithReport()` did with each conversation. */
export interface ImportReport {
  /** The sessions created or updated, in the order of the conversations. */
  sessions: SessionInfo[];
  created: SessionInfo[];
  /** Sessions brought up to date (`existing: "update"`) or replaced, with the messages added. */
  updated: Array<{ session: SessionInfo; messagesAdded: number }>;
  /** Messages written: every message of a created session, the added ones of an update. */
  messagesWritten: number;
  /** Conversations not imported: imported before (`exists`) or erased (`erased`). */
  skipped: Array<{
    title: string;
    reason: "exists" | "erased";
    /** The session it was imported into (`exists`), else `null`. */
    sessionId: string | null;
  }>;
}

/**
 * Writes parsed conversations as sessions, all or nothing: each through
 * `manager.importSession()`, then its block versions, then the branch it was on. When any write
 * fails, the sessions this call created are deleted and the error is rethrown. Returns the
 * sessions created or updated; a conversation imported before is skipped (see `existing`).
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
  return (await importConversationsWithReport(manager, conversations, options))
    .sessions;
}

/**
 * `importConversations()`, answering what it did: the sessions created, updated and the
 * conversations skipped. Each session keeps its source in its metadata (`import.format`,
 * `import.sourceId`, `import.fileName`, and `import.key`, the hashed identity the import index
 * looks up) and `import.importedAt`, when it entered this store (retention counts from it); the identity is per owner, so another tenant's import never matches.
 */
export async function importConversationsWithReport(
  manager: SessionManager,
  conversations: readonly ParsedConversation[],
  options: ImportConversationsOptions = {},
): Promise<ImportReport> {
  const total = conversations.reduce(
    (sum, item) => sum + item.snapshot.messages.length,
    0,
  );
  const index = manager.importIndex();
  const report: ImportReport = {
    sessions: [],
    created: [],
    updated: [],
    skipped: [],
    messagesWritten: 0,
  };
  /** By conversation index: the session it went to (for subagent runs' parents). */
  const placed: Array<string | undefined> = [];
  const created: SessionInfo[] = [];
  const replaced: string[] = [];
  const links: CreatedLink[] = [];
  let done = 0;
  options.onProgress?.(0, total);
  try {
    for (const conversation of conversations) {
      const identity = await identityOf(conversation, options.ownerId);
      const existing = await index.findSession(identity.key);
      const erased =
        existing === null ? await index.erasedAt(identity.key) : null;
      const mode = options.existing ?? "skip";
      if (erased !== null && options.restoreErased !== true) {
        report.skipped.push({
          title: conversation.title,
          reason: "erased",
          sessionId: null,
        });
        placed.push(undefined);
      } else if (existing !== null && mode === "skip") {
        report.skipped.push({
          title: conversation.title,
          reason: "exists",
          sessionId: existing,
        });
        placed.push(existing);
        // Imported before, maybe before its subagent's session (or parent) was: link it now.
        links.push({ conversation, sessionId: existing, key: identity.key });
      } else if (existing !== null && mode === "update") {
        const messagesAdded = await appendMissing(
          manager,
          existing,
          conversation,
        );
        const info = (await manager.get(existing))!;
        report.updated.push({ session: info, messagesAdded });
        report.sessions.push(info);
        report.messagesWritten += messagesAdded;
        placed.push(existing);
        links.push({ conversation, sessionId: existing, key: identity.key });
      } else {
        const parent =
          conversation.parentIndex === undefined
            ? undefined
            : placed[conversation.parentIndex];
        const info = await manager.importSession(
          prepare(conversation, options.keepIds === true, parent, identity),
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
        await index.recordSession(identity.key, info.id);
        if (erased !== null) await index.clearErased(identity.key);
        placed.push(info.id);
        links.push({ conversation, sessionId: info.id, key: identity.key });
        if (existing !== null) {
          replaced.push(existing);
          report.updated.push({
            session: info,
            messagesAdded: conversation.snapshot.messages.length,
          });
        } else report.created.push(info);
        report.sessions.push(info);
        report.messagesWritten += conversation.snapshot.messages.length;
      }
      done += conversation.snapshot.messages.length;
      options.onProgress?.(done, total);
    }
  } catch (error) {
    for (const info of created)
      await manager.delete(info.id).catch(() => false);
    throw error;
  }
  // Replaced sessions go once every new one is written: a failed import leaves them in place.
  for (const sessionId of replaced) await manager.delete(sessionId);
  await linkAcrossFiles(
    index,
    links,
    async (source) =>
      (await identityOf({ ...links[0]!.conversation, source }, options.ownerId))
        .key,
  );
  const fresh = async (info: SessionInfo) =>
    (await manager.get(info.id)) ?? info;
  report.sessions = await Promise.all(report.sessions.map(fresh));
  report.created = await Promise.all(report.created.map(fresh));
  return report;
}

// --- Internal helpers ---

/** The metadata keys an import writes; a snapshot's own copies of them are replaced. */
const SOURCE_METADATA = [
  "import.format",
  "import.sourceId",
  "import.fileName",
  IMPORT_KEY_METADATA,
  IMPORTED_AT_METADATA,
];

interface Identity {
  source: ImportSource & { id: string };
  /** The hashed identity, per owner: what the import index and the tombstones hold. */
  key: string;
}

/** A conversation's source (its content hash where the format has no id) and hashed key. */
async function identityOf(
  conversation: ParsedConversation,
  ownerId: string | undefined,
): Promise<Identity> {
  const source = conversation.source ?? {
    format: conversation.format,
    id: null,
  };
  const id =
    source.id ??
    `sha256:${await sha256(
      JSON.stringify(
        conversation.snapshot.messages.map((record) => [
          record.parentId,
          record.message,
        ]),
      ),
    )}`;
  const key = await sha256(
    JSON.stringify([ownerId ?? null, source.format, id]),
  );
  return { source: { ...source, id }, key };
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return [...new Uint8Array(digest)]
    .map((byte) => byte.toString(16).padStart(2, "0"))
    .join("");
}

/** Adds the messages the session lacks, parents first, as they were; returns how many. */
async function appendMissing(
  manager: SessionManager,
  sessionId: string,
  conversation: ParsedConversation,
): Promise<number> {
  const session = manager.getSession(sessionId);
  let added = 0;
  for (const record of conversation.snapshot.messages)
    if (
      await session.importMessage(record.message, {
        parentId: record.parentId,
        createdAt: record.createdAt,
      })
    )
      added++;
  await restoreActiveLeaf(manager, sessionId, conversation.activeLeafId);
  return added;
}

/**
 * The snapshot to write: fresh overlay ids unless ids are kept (they are unique per store),
 * versioned blocks apart, the source in the metadata, the conversation's times and parent.
 */
function prepare(
  conversation: ParsedConversation,
  keepIds: boolean,
  parentSessionId: string | undefined,
  identity: Identity,
): SessionSnapshot {
  const { snapshot, blockVersions = {}, times } = conversation;
  const contextBlocks = Object.fromEntries(
    Object.entries(snapshot.contextBlocks ?? {}).filter(
      ([label]) => !(label in blockVersions),
    ),
  );
  const metadata: Record<string, string> = Object.fromEntries(
    Object.entries(snapshot.metadata ?? {}).filter(
      ([key]) => !SOURCE_METADATA.includes(key),
    ),
  );
  metadata["import.format"] = identity.source.format;
  metadata["import.sourceId"] = identity.source.id;
  if (identity.source.fileName)
    metadata["import.fileName"] = identity.source.fileName;
  metadata[IMPORT_KEY_METADATA] = identity.key;
  // The conversation keeps its own dates; retention counts from when it entered this store.
  metadata[IMPORTED_AT_METADATA] = new Date().toISOString();
  return {
    ...snapshot,
    metadata,
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
