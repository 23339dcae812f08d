import { encodeForStorage } from "../../session/messages/attachments.js";
import {
  encodeMessage,
  searchableText,
} from "../../session/messages/message-codec.js";
import type {
  ImportRecords,
  MessageWrite,
  WriteMessagesResult,
} from "../../session/contracts/provider.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import { firstWriteSessionInfo } from "../../session/messages/stored-rows.js";
import { ArborError } from "../../session/errors/index.js";
import { nowIso } from "../../session/state/now-iso.js";
import { publishMemoryChange } from "./memory-changes.js";
import type {
  MemoryRow,
  MemorySessionData,
  MemoryStore,
} from "./memory-store.js";
import { latestLeafRow, pushChild, removeRows } from "./memory-tree.js";

/*
 * The message writes of one session of a `MemoryStore` (docs/behavior/messages-and-tree.md). Each
 * publishes its change only once it is fully applied, so a listener always reads the new state.
 */

/**
 * Writes `messages` as one chain (`SessionProvider.writeMessages`): each under the one before it,
 * the first under `parentId` (the latest leaf when `undefined`, a root for `null` or an unknown
 * parent). An id already stored, or earlier in the batch, is skipped and the next message still
 * goes under it. Every message is encoded (and, without its JSON, checked) before anything is
 * stored, and the change is published once, after the whole chain.
 */
export function writeRows(
  store: MemoryStore,
  sessionId: string,
  messages: readonly MessageWrite[],
  parentId: string | null | undefined,
): WriteMessagesResult {
  // An append is one message: it takes a path without loops. V8's optimizing compiler copies a
  // loop's first pass ahead of the loop, so the chain, with the insert inlined into both loops'
  // copies, cost an append run more compile work than the message writes themselves saved.
  // Only a batch reaches the chain, so only a batch workload compiles it.
  if (messages.length === 1)
    return writeOne(store, sessionId, messages[0]!, parentId);
  return writeChain(store, sessionId, messages, parentId);
}

/** `writeRows` of one message. */
function writeOne(
  store: MemoryStore,
  sessionId: string,
  write: MessageWrite,
  parentId: string | null | undefined,
): WriteMessagesResult {
  const { message, json } = write;
  // Encoded before the duplicate check, as in a chain: an invalid message throws even when its id exists.
  const encoded = encodeForStorage(message, json);
  const data = store.session(sessionId);
  const firstParentId = resolveParent(data, parentId);
  if (data.rows.has(message.id)) return { inserted: [false], firstParentId };
  const row = insertRow(
    store,
    sessionId,
    data,
    message,
    encoded,
    firstParentId,
    nowIso(),
  );
  data.latestLeaf = row;
  publishMemoryChange(store, sessionId, "append", [row.id]);
  return { inserted: [true], firstParentId };
}

/** `writeRows` of a batch: plain loops, no callback per message to allocate and compile. */
function writeChain(
  store: MemoryStore,
  sessionId: string,
  messages: readonly MessageWrite[],
  parentId: string | null | undefined,
): WriteMessagesResult {
  const count = messages.length;
  const encoded: EncodedMessage[] = new Array<EncodedMessage>(count);
  for (let index = 0; index < count; index++) {
    const { message, json } = messages[index]!;
    encoded[index] = encodeForStorage(message, json);
  }
  const data = store.session(sessionId);
  const firstParentId = resolveParent(data, parentId);

  const inserted: boolean[] = [];
  const insertedIds: string[] = [];
  let parent = firstParentId;
  const createdAt = nowIso();
  for (let index = 0; index < count; index++) {
    const { message } = messages[index]!;
    if (data.rows.has(message.id)) inserted.push(false);
    else {
      const row = insertRow(
        store,
        sessionId,
        data,
        message,
        encoded[index]!,
        parent,
        createdAt,
      );
      data.latestLeaf = row;
      inserted.push(true);
      insertedIds.push(row.id);
    }
    parent = message.id;
  }
  if (insertedIds.length > 0)
    publishMemoryChange(store, sessionId, "append", insertedIds);
  return { inserted, firstParentId };
}

/** Replaces the stored content of `message` in place (`json`: its JSON when known); unknown ids are ignored. */
export function updateRow(
  store: MemoryStore,
  sessionId: string,
  message: SessionMessage,
  known?: string,
): void {
  const { json, attachments } = encodeForStorage(message, known);
  const data = store.peek(sessionId);
  const row = data?.rows.get(message.id);
  if (!data || !row) return;
  store.attachments.release(sessionId, [message.id]);
  store.attachments.add(sessionId, message.id, attachments);
  row.json = json;
  row.role = message.role;
  row.text = searchableText(message);
  row.indexed = indexedText(store, message, row.text);
  data.textIndex.changed(row);
  publishMemoryChange(store, sessionId, "update", [row.id]);
}

/** Deletes the known ids among `ids` and repairs the tree around them; unknown ids are ignored. */
export function deleteRows(
  store: MemoryStore,
  sessionId: string,
  ids: readonly string[],
): void {
  const data = store.peek(sessionId);
  if (!data) return;
  const deleted = new Set(ids.filter((id) => data.rows.has(id)));
  if (deleted.size === 0) return;
  // The change event lists the ids in insertion order, as the SQL backends do.
  const inOrder = [...deleted].sort(
    (left, right) => data.rows.get(left)!.seq - data.rows.get(right)!.seq,
  );
  store.attachments.release(sessionId, deleted);
  removeRows(data, deleted);
  publishMemoryChange(store, sessionId, "delete", inOrder);
}

/** Removes every message and overlay of the session; its config and block history stay. */
export function clearRows(store: MemoryStore, sessionId: string): void {
  clearSessionRows(store, sessionId);
  publishMemoryChange(store, sessionId, "clear", []);
}

/**
 * Stores `records` with their own parents and timestamps (docs/behavior/messages-and-tree.md,
 * "Importing messages"). Every message is checked before anything is written, so a bad record
 * or an existing id (without `replace`) leaves the session untouched.
 */
export function importRows(
  store: MemoryStore,
  sessionId: string,
  records: ImportRecords,
): void {
  const data = store.session(sessionId);
  for (const { message } of records.messages) {
    encodeMessage(message);
    if (!records.replace && data.rows.has(message.id)) {
      throw new ArborError(
        "MESSAGE_EXISTS",
        `[arbor] Message "${message.id}" already exists in session "${sessionId}"; import with replace to overwrite`,
      );
    }
  }
  if (records.replace) clearSessionRows(store, sessionId);
  for (const { message, parentId, createdAt } of records.messages) {
    insertRow(
      store,
      sessionId,
      data,
      message,
      encodeForStorage(message),
      parentId,
      createdAt,
    );
  }
  data.compactions.push(...structuredClone(records.compactions));
  const moved = reattachRoots(data, records);
  data.latestLeaf = undefined;
  publishMemoryChange(store, sessionId, "import", [
    ...records.messages.map(({ message }) => message.id),
    ...moved,
  ]);
}

// --- Internal helpers ---

/** The parent of a write's first message: the latest leaf for `undefined`, a root for `null` or an unknown id. */
function resolveParent(
  data: MemorySessionData,
  parentId: string | null | undefined,
): string | null {
  if (parentId === undefined) return latestLeafRow(data)?.id ?? null;
  if (parentId === null) return null;
  return data.rows.has(parentId) ? parentId : null;
}

/** A message as stored: its JSON text and the attachments taken out of it. */
type EncodedMessage = ReturnType<typeof encodeForStorage>;

/** Stores a new row for an encoded message, with its attachments, under an already resolved parent. */
function insertRow(
  store: MemoryStore,
  sessionId: string,
  data: MemorySessionData,
  message: SessionMessage,
  encoded: EncodedMessage,
  parentId: string | null,
  createdAt: string,
): MemoryRow {
  store.attachments.add(sessionId, message.id, encoded.attachments);
  const text = searchableText(message);
  // Every member in the literal: a row takes its final shape at once, not by a later transition.
  const row: MemoryRow = {
    seq: store.takeSeq(),
    id: message.id,
    parentId,
    role: message.role,
    json: encoded.json,
    createdAt,
    text,
    indexed: indexedText(store, message, text),
  };
  data.rows.set(row.id, row);
  data.ordered.push(row);
  data.textIndex.add(row);
  if (row.parentId !== null) pushChild(data, row.parentId, row);
  // A session written without the manager is registered by its first message (docs/behavior/manager.md#sessions-written-without-the-manager).
  if (sessionId !== "" && !store.registry.has(sessionId))
    store.registry.set(
      sessionId,
      firstWriteSessionInfo(sessionId, new Date().toISOString()),
    );
  return row;
}

/**
 * `records.reattach`: each stored root goes under a message this import inserted, keeping its
 * insertion order among its new siblings; anything else is left where it is. Returns the ids moved.
 */
function reattachRoots(
  data: MemorySessionData,
  records: ImportRecords,
): string[] {
  const inserted = new Set(records.messages.map(({ message }) => message.id));
  const moved: string[] = [];
  for (const { id, parentId } of records.reattach ?? []) {
    const row = data.rows.get(id);
    if (!row || row.parentId !== null || !inserted.has(parentId)) continue;
    row.parentId = parentId;
    pushChild(data, parentId, row);
    moved.push(id);
  }
  return moved;
}

/** Clears the rows without publishing, so an import with `replace` reports one change only. */
function clearSessionRows(store: MemoryStore, sessionId: string): void {
  const data = store.peek(sessionId);
  if (!data) return;
  store.attachments.releaseSession(sessionId);
  data.rows.clear();
  data.children.clear();
  data.ordered = [];
  data.textIndex.clear();
  data.compactions = [];
  data.latestLeaf = null;
}

/**
 * The text a row is indexed by when it is not its searchable text: with tool outputs when the
 * store indexes them and the message has any (docs/behavior/search.md#tool-outputs).
 */
export function indexedText(
  store: MemoryStore,
  message: SessionMessage,
  text: string,
): string | undefined {
  if (!store.toolOutputs) return undefined;
  const indexed = searchableText(message, true);
  return indexed === text ? undefined : indexed;
}
