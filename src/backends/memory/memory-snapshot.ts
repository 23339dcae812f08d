import type { BlockVersion } from "../../session/contracts/block-history.js";
import type { SessionInfo } from "../../session/contracts/session-info.js";
import type {
  SessionMessagePart,
  StoredCompaction,
} from "../../session/contracts/types.js";
import { searchableText } from "../../session/messages/message-codec.js";
import { indexedText } from "./memory-writes.js";
import {
  encodeForStorage,
  mayReferenceAttachments,
  restoreAttachments,
} from "../../session/messages/attachments.js";
import {
  readBlockVersions,
  readCompactions,
  readMessages,
  readPairs,
  readSessionInfo,
  snapshotFailure,
  SnapshotReader,
} from "./memory-snapshot-checks.js";
import { MemoryStore, type MemoryRow } from "./memory-store.js";

/** The `format` of an in-memory store snapshot. */
export const MEMORY_SNAPSHOT_FORMAT = "arbor.in-memory-store";

/** The only snapshot version this Arbor writes and reads. */
export const MEMORY_SNAPSHOT_VERSION = 1;

/** A stored message as JSON: exactly what was appended, with `createdAt` (if any) as an ISO string. */
export interface StoredMessageJson {
  id: string;
  role: string;
  parts: SessionMessagePart[];
  createdAt?: string;
  [extra: string]: unknown;
}

/** One stored message row of a snapshot. */
export interface InMemoryMessageSnapshot {
  /** The store-wide insertion sequence: orders rows, siblings and search ties. */
  seq: number;
  parentId: string | null;
  /** When the row was stored (ISO-8601), not the message's own `createdAt`. */
  createdAt: string;
  message: StoredMessageJson;
}

/** Everything one session of the store holds. */
export interface InMemorySessionSnapshot {
  sessionId: string;
  /** Every message of every branch, in insertion order. */
  messages: InMemoryMessageSnapshot[];
  /** Overlays, oldest first, superseded ones included. */
  compactions: StoredCompaction[];
  /** Per-session config (`getConfig`/`setConfig`, the branch pointer, owner, metadata). */
  config: Array<[key: string, value: string]>;
}

/**
 * An `InMemorySessionProvider`'s whole store as plain JSON (`toJSON()`), read back by
 * `InMemorySessionProvider.fromJSON()`. It holds every session reachable through `forSession()`.
 * The latest leaf is not stored: it is the newest message without children, which the kept
 * insertion order gives back.
 */
export interface InMemorySessionProviderSnapshot {
  format: typeof MEMORY_SNAPSHOT_FORMAT;
  version: typeof MEMORY_SNAPSHOT_VERSION;
  /** The session of the provider that wrote the snapshot; `fromJSON()` addresses it again. */
  sessionId: string;
  /** The sequence number the next stored message gets. */
  nextSeq: number;
  sessions: InMemorySessionSnapshot[];
  /** Rows of auto-wired context blocks (`createContextProvider(key)`), by key. */
  contextBlocks: Array<[key: string, content: string]>;
  /** Versions of writable blocks, per session and label, oldest first. */
  blockHistory: Array<{
    sessionId: string;
    label: string;
    versions: BlockVersion[];
  }>;
  /** `SessionManager` registry rows kept by this store. */
  registry: SessionInfo[];
}

/** The whole store as a snapshot. Every value is copied: later writes do not show in it. */
export function snapshotStore(
  store: MemoryStore,
  sessionId: string,
): InMemorySessionProviderSnapshot {
  const sessions: InMemorySessionSnapshot[] = [];
  for (const [id, data] of store.sessions) {
    sessions.push({
      sessionId: id,
      messages: data.ordered.map((row) => ({
        seq: row.seq,
        parentId: row.parentId,
        createdAt: row.createdAt,
        message: readableJson(store, row.json),
      })),
      compactions: structuredClone(data.compactions),
      config: [...data.config],
    });
  }
  const blockHistory: InMemorySessionProviderSnapshot["blockHistory"] = [];
  for (const [id, history] of store.blockHistories) {
    for (const [label, versions] of history.entries())
      blockHistory.push({ sessionId: id, label, versions });
  }
  return {
    format: MEMORY_SNAPSHOT_FORMAT,
    version: MEMORY_SNAPSHOT_VERSION,
    sessionId,
    nextSeq: store.peekSeq(),
    sessions,
    contextBlocks: [...store.contextRows],
    blockHistory,
    registry: [...store.registry.values()].map((info) => ({ ...info })),
  };
}

/**
 * A new store holding exactly what the snapshot describes, and the session id to address.
 * Throws `INVALID_SNAPSHOT` (and builds nothing) when the input is not such a snapshot.
 */
export function restoreStore(input: unknown): {
  store: MemoryStore;
  sessionId: string;
} {
  const snapshot = parseInput(input);
  const store = new MemoryStore();
  const seen = new Set<number>();
  for (const session of snapshot.list("sessions")) {
    const sessionId = session.string("sessionId");
    if (store.peek(sessionId))
      throw snapshotFailure(`session "${sessionId}" appears twice`);
    const data = store.session(sessionId);
    for (const entry of readMessages(session, seen)) {
      const { json, attachments } = encodeForStorage(entry.message);
      store.attachments.add(sessionId, entry.message.id, attachments);
      const row: MemoryRow = {
        seq: entry.seq,
        id: entry.message.id,
        parentId: entry.parentId,
        role: entry.message.role,
        json,
        createdAt: entry.createdAt,
        text: searchableText(entry.message),
      };
      row.indexed = indexedText(store, entry.message, row.text);
      data.rows.set(row.id, row);
      data.ordered.push(row);
      data.textIndex.add(row);
      if (row.parentId !== null) {
        const siblings = data.children.get(row.parentId);
        if (siblings) siblings.push(row);
        else data.children.set(row.parentId, [row]);
      }
      store.observeSeq(row.seq);
    }
    data.compactions = readCompactions(session);
    for (const [key, value] of readPairs(session, "config"))
      data.config.set(key, value);
  }
  const nextSeq = snapshot.positiveInteger("nextSeq");
  store.observeSeq(nextSeq - 1);
  for (const [key, content] of readPairs(snapshot, "contextBlocks"))
    store.contextRows.set(key, content);
  for (const entry of snapshot.list("blockHistory")) {
    const history = store.blockHistory(entry.string("sessionId"));
    const label = entry.string("label");
    if (history.list(label).length > 0)
      throw snapshotFailure(`block history of "${label}" appears twice`);
    history.load(label, readBlockVersions(entry));
  }
  for (const entry of snapshot.list("registry")) {
    const info = readSessionInfo(entry);
    store.registry.set(info.id, info);
  }
  return { store, sessionId: snapshot.string("sessionId") };
}

// --- Internal helpers ---

/** A stored row as the snapshot holds it: parsed, attachments restored to their `data:` URLs. */
function readableJson(store: MemoryStore, json: string): StoredMessageJson {
  const parsed = JSON.parse(json) as StoredMessageJson;
  if (!mayReferenceAttachments(json)) return parsed;
  return restoreAttachments(parsed, (hash) => store.attachments.get(hash));
}

function parseInput(input: unknown): SnapshotReader {
  let value = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw snapshotFailure("the text is not JSON", error);
    }
  }
  const snapshot = SnapshotReader.of(value, "snapshot");
  if (
    snapshot.raw("format") !== MEMORY_SNAPSHOT_FORMAT ||
    snapshot.raw("version") !== MEMORY_SNAPSHOT_VERSION
  ) {
    throw snapshotFailure(
      `expected format "${MEMORY_SNAPSHOT_FORMAT}" version ${MEMORY_SNAPSHOT_VERSION}`,
    );
  }
  return snapshot;
}
