import type {
  SessionInfo,
  SessionSnapshot,
} from "../session/contracts/session-info.js";
import { uuidFromHex } from "../session/encoding/hash-uuid.js";
import {
  IMPORT_KEY_METADATA,
  IMPORTED_AT_METADATA,
} from "../session/manager/import-index.js";
import type { SessionManager } from "../session/manager/session-manager.js";
import type { Session } from "../session/facade/session.js";
import type {
  SessionMessage,
  StoredCompaction,
} from "../session/contracts/types.js";
import { missingParentOf } from "./missing-parent.js";
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
   * A conversation imported before into a session of the same owner: `"update"` it (default:
   * merged by message id, the messages it lacks are added under their parents, none is written
   * twice; with nothing new it is reported as skipped), `"skip"` it, or `"replace"` that session
   * with a new one.
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
 * looks up) and `import.importedAt`, when it entered this store (retention counts from it); the
 * identity is per owner, so another tenant's import never matches.
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
      const mode = options.existing ?? "update";
      let existing = await index.findSession(identity.key);
      const erased =
        existing === null ? await index.erasedAt(identity.key) : null;
      const parent =
        conversation.parentIndex === undefined
          ? undefined
          : placed[conversation.parentIndex];
      let info: SessionInfo | null = null;
      if (erased !== null && options.restoreErased !== true) {
        report.skipped.push({
          title: conversation.title,
          reason: "erased",
          sessionId: null,
        });
        placed.push(undefined);
        continue;
      }
      if (existing === null || mode === "replace") {
        const written = await writeSession(manager, conversation, {
          keepIds: options.keepIds === true,
          ownerId: options.ownerId,
          parent,
          identity,
          // A first import takes the id its identity gives: concurrent imports of one
          // conversation then meet at one session instead of making one each.
          derivedId: existing === null && erased === null,
        });
        if ("session" in written) info = written.session;
        else existing = written.existing;
      }
      if (info) {
        created.push(info);
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
      } else if (existing !== null && mode === "update") {
        // Merged by message id: what the session holds is skipped, the rest goes under its
        // parent, whichever of two files of the conversation came first.
        const added = await appendMissing(manager, existing, conversation);
        const messagesAdded = added.messages;
        placed.push(existing);
        // Imported before, maybe before its subagent's session (or parent) was: link it now.
        links.push({ conversation, sessionId: existing, key: identity.key });
        if (messagesAdded === 0 && added.overlays === 0)
          report.skipped.push({
            title: conversation.title,
            reason: "exists",
            sessionId: existing,
          });
        else {
          const session = (await manager.get(existing))!;
          report.updated.push({ session, messagesAdded });
          report.sessions.push(session);
          report.messagesWritten += messagesAdded;
        }
      } else if (existing !== null) {
        report.skipped.push({
          title: conversation.title,
          reason: "exists",
          sessionId: existing,
        });
        placed.push(existing);
        links.push({ conversation, sessionId: existing, key: identity.key });
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

/** How long an import waits for a concurrent import of the same conversation to finish. */
const CONCURRENT_IMPORT_WAIT_MS = 10_000;

/**
 * Writes the conversation as a new session: its snapshot, block versions and active branch, then
 * the index entry. With `derivedId` the session's id comes from the conversation's identity, so
 * when another import of the same conversation holds it (SESSION_EXISTS) this one waits for that
 * import to finish and answers its session as `existing` (it goes again when that import failed
 * and left nothing, and adopts the session when that import stopped without recording it). An id
 * taken by any other session (its metadata was changed) gives way to a random id, as an import
 * had before ids were derived.
 */
async function writeSession(
  manager: SessionManager,
  conversation: ParsedConversation,
  options: {
    keepIds: boolean;
    ownerId: string | undefined;
    parent: string | undefined;
    identity: Identity;
    derivedId: boolean;
  },
): Promise<{ session: SessionInfo } | { existing: string }> {
  const index = manager.importIndex();
  const { identity } = options;
  const derived =
    options.derivedId && !options.keepIds
      ? uuidFromHex(await sha256(JSON.stringify(["session", identity.key])))
      : undefined;
  const deadline = performance.now() + CONCURRENT_IMPORT_WAIT_MS;
  let id = derived;
  for (;;) {
    let info: SessionInfo;
    try {
      info = await manager.importSession(
        prepare(conversation, options.keepIds, options.parent, identity),
        {
          ...(id !== undefined ? { id } : { newId: !options.keepIds }),
          ...(options.ownerId !== undefined
            ? { ownerId: options.ownerId }
            : {}),
          name: conversation.title,
        },
      );
    } catch (error) {
      if (
        id === undefined ||
        (error as { code?: unknown }).code !== "SESSION_EXISTS"
      )
        throw error;
      const other = await finishedImport(manager, identity.key, id, deadline);
      if (other === "gone") continue;
      if (other !== null) return { existing: other };
      // Still not recorded: an import that stopped half way (its process died) left the session
      // with this conversation's key, and a merge completes it; any other session keeps the id.
      if ((await importKeyOf(manager, id)) === identity.key) {
        await index.recordSession(identity.key, id);
        return { existing: id };
      }
      id = undefined;
      continue;
    }
    try {
      await writeBlockVersions(
        manager,
        info.id,
        conversation.blockVersions ?? {},
      );
      await restoreActiveLeaf(manager, info.id, conversation.activeLeafId);
      await index.recordSession(identity.key, info.id);
    } catch (error) {
      await manager.delete(info.id).catch(() => false);
      throw error;
    }
    return { session: info };
  }
}

/**
 * Waits for the import that holds `id` to record it: its session id, `"gone"` when it failed
 * (the id is free again), or `null` when the deadline passes first.
 */
async function finishedImport(
  manager: SessionManager,
  key: string,
  id: string,
  deadline: number,
): Promise<string | null> {
  const index = manager.importIndex();
  for (let pause = 5; ; pause = Math.min(pause * 2, 200)) {
    const found = await index.findSession(key);
    if (found !== null) return found;
    if ((await manager.get(id)) === null) return "gone";
    if (performance.now() >= deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** The import key in the session's metadata, or `null`. */
async function importKeyOf(
  manager: SessionManager,
  sessionId: string,
): Promise<string | null> {
  return (await manager.getMetadata(sessionId, IMPORT_KEY_METADATA)) ?? null;
}

/**
 * Adds the messages the session lacks, parents first, as they were, then the overlays it lacks;
 * returns how many of each. A message stored as a root because its file lacked its parent
 * (`metadata.missingParentId`, a trimmed file imported with `lenient`) goes under that parent in
 * the same write that adds the parent.
 */
async function appendMissing(
  manager: SessionManager,
  sessionId: string,
  conversation: ParsedConversation,
): Promise<{ messages: number; overlays: number }> {
  const session = manager.getSession(sessionId);
  const childrenOf = new Map<string, string[]>();
  for (const { message, parentId } of conversation.snapshot.messages)
    if (parentId !== null)
      childrenOf.set(parentId, [
        ...(childrenOf.get(parentId) ?? []),
        message.id,
      ]);
  let added = 0;
  for (const record of conversation.snapshot.messages) {
    if ((await session.getMessage(record.message.id)) !== null) continue;
    const reattach = await storedOrphans(
      session,
      childrenOf.get(record.message.id) ?? [],
    );
    if (
      await session.importMessage(record.message, {
        parentId:
          record.parentId ??
          (await storedMissingParent(session, record.message)),
        createdAt: record.createdAt,
        ...(reattach.length > 0 ? { reattach } : {}),
      })
    )
      added++;
  }
  const overlays = await addMissingOverlays(session, sessionId, conversation);
  // Nothing new leaves the session as it is, its active branch included.
  if (added > 0 || overlays > 0)
    await restoreActiveLeaf(manager, sessionId, conversation.activeLeafId);
  return { messages: added, overlays };
}

/**
 * Adds the file's overlays the session lacks, once both ends are stored: a fragment imported
 * first held none of the summaries of what it cut off, and an overlay is what the history reads.
 * Overlay ids are fresh per import (they are unique per store), so an overlay is the same one
 * when it covers the same messages with the same summary. Written in one `importSnapshot` with
 * nothing else, keeping each overlay's own time (its order among the others). Returns how many.
 */
async function addMissingOverlays(
  session: Session,
  sessionId: string,
  conversation: ParsedConversation,
): Promise<number> {
  const { compactions } = conversation.snapshot;
  if (compactions.length === 0) return 0;
  const sameAs = (overlay: StoredCompaction) =>
    JSON.stringify([
      overlay.fromMessageId,
      overlay.toMessageId,
      overlay.summary,
    ]);
  const held = new Set((await session.getCompactions()).map(sameAs));
  const missing: StoredCompaction[] = [];
  for (const overlay of compactions) {
    if (held.has(sameAs(overlay))) continue;
    if (
      (await session.getMessage(overlay.fromMessageId)) === null ||
      (await session.getMessage(overlay.toMessageId)) === null
    )
      continue;
    held.add(sameAs(overlay));
    missing.push({ ...overlay, id: crypto.randomUUID() });
  }
  if (missing.length === 0) return 0;
  await session.importSnapshot(
    {
      format: "arbor.session",
      version: 1,
      sessionId,
      exportedAt: new Date().toISOString(),
      messages: [],
      compactions: missing,
      activeLeafId: null,
    },
    { replace: false },
  );
  return missing.length;
}

/**
 * Of a message's children in the file, those the session holds marked as stored without their
 * parent: the roots the message's write moves under it. The mark is the guard, not the id it
 * names: a fragment's first entry may be one the import skips (a model change), so the id the
 * fragment lacked is not always the message that turns out to be the parent. The store moves
 * each only while it is still a root.
 */
async function storedOrphans(
  session: Session,
  childIds: readonly string[],
): Promise<string[]> {
  const orphans: string[] = [];
  for (const id of childIds) {
    const stored = await session.getMessage(id);
    if (stored !== null && missingParentOf(stored) !== null) orphans.push(id);
  }
  return orphans;
}

/**
 * The parent a lenient fragment's root lacked, when the session holds it already (the part of
 * the conversation before the fragment was imported first): the message goes under it.
 */
async function storedMissingParent(
  session: Session,
  message: SessionMessage,
): Promise<string | null> {
  const parentId = missingParentOf(message);
  if (parentId === null) return null;
  return (await session.getMessage(parentId)) === null ? null : parentId;
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
