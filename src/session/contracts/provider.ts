/**
 * The storage contract (docs/behavior/storage.md). Every backend (in-memory, any Durable-Object-style `sql` tag,
 * PostgreSQL, yours) implements this one interface, and the conformance suite in `arbor-memory/testing`
 * checks it. Every method may answer synchronously or with a Promise.
 *
 * Required members are the primitives; optional members add speed or capabilities, and the Session
 * either falls back to the primitives or throws a clear "not supported" error without them.
 */
import type { BlockHistoryStore } from "./block-history.js";
import type { BackendEmbeddings } from "./embedding-store.js";
import type {
  ChangeListener,
  Unsubscribe,
  WatchChangesOptions,
} from "./changes.js";
import type {
  CompactionMeta,
  HistoryRowStat,
  MaybePromise,
  RecentHistoryResult,
  SearchResult,
  SessionMessage,
  StoredCompaction,
  TextSearchOptions,
} from "./types.js";

/** The built-in token estimate a store counts with (`SessionProvider.getTokenEstimate`). */
export type StoreTokenEstimate = "heuristic" | "multilingual";

/** A message with its place in the tree, as exported and imported in bulk (docs/behavior/manager.md). */
export interface StoredMessageRecord {
  message: SessionMessage;
  parentId: string | null;
  /** ISO-8601 UTC with milliseconds: the insertion time. */
  createdAt: string;
}

/** Messages and overlays to import in one go. */
export interface ImportRecords {
  /** In insertion order; parents come before their children. */
  messages: StoredMessageRecord[];
  compactions: StoredCompaction[];
  /** Delete the session's messages and overlays first, in the same atomic write. */
  replace?: boolean;
  /**
   * Stored roots to move under a message of this import, in the same atomic write: each entry's
   * `id` goes under `parentId` (one of `messages`) when it is still a root of this session, and
   * is left where it is otherwise (moved since, deleted, or never stored). What a merge of a
   * conversation uses to put a trimmed file's orphans under the parent that file lacked
   * (docs/formats.md#re-imports). Passed only to a provider that declares `importReattaches`.
   */
  reattach?: ReattachRecord[];
}

/** A stored root and the message of the same import it belongs under (`ImportRecords.reattach`). */
export interface ReattachRecord {
  id: string;
  parentId: string;
}

/** One row of a path, as streamed history plans its windows: the id and the UTF-8 size of its stored JSON. */
export interface PathEntry {
  id: string;
  bytes: number;
}

/**
 * One message for `writeMessages`: the message and, when the caller has already validated and
 * encoded it (the Session always has), its JSON.
 */
export interface MessageWrite {
  message: SessionMessage;
  /**
   * `JSON.stringify(message)`, already validated by the caller: the store keeps it as it is,
   * without validating or encoding the message again. Absent: the store validates the message
   * (`INVALID_MESSAGE`, nothing written) and encodes it itself.
   */
  json?: string;
}

/** Options of `writeMessages`. */
export interface WriteMessagesOptions {
  /**
   * The parent of the first message: `undefined` = the latest leaf (resolved inside the atomic
   * write, so concurrent writers chain), `null` = a new root, a string = that message (a root if
   * it is not in this session). Every later message goes under the one before it.
   */
  parentId?: string | null;
  /**
   * Write only if the session has a row in the store's own registry, checked in the same atomic
   * write; without one, write nothing and report `registered: false`. Passed only to a provider
   * that declares `insertChecksRegistry`.
   */
  requireRegistered?: boolean;
  /**
   * With a string `parentId`: write only if that message is in this session, checked in the same
   * atomic write; otherwise write nothing and report `parentFound: false` (instead of storing the
   * first message as a root). Passed only to a provider that declares `insertChecksParent`.
   */
  requireParent?: boolean;
}

/** What `writeMessages` reports: per message whether a row was inserted, and where the first went. */
export interface WriteMessagesResult {
  /** One entry per message, in order: `true` when a row was inserted, `false` when the id was already there. */
  inserted: boolean[];
  /**
   * The parent the first message was stored under (`null` = a root). Read only when the first
   * message was inserted; a store may answer `null` otherwise.
   */
  firstParentId: string | null;
  /**
   * `true` when the same write also set the session's registry `updated_at` (and registered a
   * session without a row), so a manager over that registry does not touch it again: one round
   * trip fewer per append. Absent or `false`: the manager touches it after the write.
   */
  registryTouched?: boolean;
  /**
   * `false` when `options.requireRegistered` was passed and the session has no registry row:
   * nothing was written (every `inserted` entry is `false`). Absent otherwise.
   */
  registered?: boolean;
  /**
   * `false` when `options.requireParent` was passed with a string `parentId` that is not in the
   * session: nothing was written (every `inserted` entry is `false`). Absent otherwise.
   */
  parentFound?: boolean;
}

/** The members every `SessionProvider` must have; the rest of the interface is optional. */
export const REQUIRED_PROVIDER_METHODS = [
  "getMessage",
  "getHistory",
  "getLatestLeaf",
  "getBranches",
  "getPathLength",
  "writeMessages",
  "updateMessage",
  "deleteMessages",
  "clearMessages",
  "addCompaction",
  "getCompactions",
] as const;

export interface SessionProvider {
  /** The stored message with this id in this session, raw (no overlays), or `null`. */
  getMessage(id: string): MaybePromise<SessionMessage | null>;
  /** Path root → leaf (latest leaf when `leafId` is null/undefined/""), overlays applied; `[]` for unknown ids. */
  getHistory(leafId?: string | null): MaybePromise<SessionMessage[]>;
  /** The most recently inserted leaf, raw, or `null` for an empty session. */
  getLatestLeaf(): MaybePromise<SessionMessage | null>;
  /**
   * Optional: `getHistory(leafId)` and the id of the leaf that path ends at (the latest leaf for
   * null/undefined/""; `null` for an empty session), from one read, so the history of the active
   * branch and its leaf agree even while other writers append. Without it the Session reads the
   * leaf first, then its history.
   */
  getHistoryAndLeaf?(
    leafId?: string | null,
  ): MaybePromise<{ messages: SessionMessage[]; leafId: string | null }>;
  /**
   * Optional: `getHistoryAndLeaf(leafId)` when the path holds at most `within.messages` rows and
   * `within.bytes` bytes of stored JSON (as `getPathIds` counts them), else `null` without
   * reading content, in one read: a small history answered whole, a larger one streamed.
   */
  getHistoryAndLeafWithin?(
    leafId: string | null | undefined,
    within: { messages: number; bytes: number },
  ): MaybePromise<{ messages: SessionMessage[]; leafId: string | null } | null>;
  /** Optional: the latest leaf's id alone (no decode); used on hot paths when present. */
  getLatestLeafId?(): MaybePromise<string | null>;
  /** Children of `messageId` in insertion order (oldest first). */
  getBranches(messageId: string): MaybePromise<SessionMessage[]>;
  /** Number of stored rows on the path to `leafId` (latest leaf by default); 0 if unknown. */
  getPathLength(leafId?: string | null): MaybePromise<number>;
  /**
   * The one write of messages: inserts `messages` (1..n) in one atomic write, in order, each under
   * the message before it and the first under `options.parentId` (see `WriteMessagesOptions`),
   * and reports per message whether a row was inserted. Idempotent by id: an id already taken
   * (in the session, or earlier in the batch) is left as it is and reported `false`, and the next
   * message still goes under that id. `Session.appendMessage` writes one, `Session.appendAll`
   * many; a provider written for the seed API (`appendMessage(message, parentId?)` returning
   * `boolean | void`) is adapted to this by the Session (`SeedSessionProvider`).
   */
  writeMessages(
    messages: readonly MessageWrite[],
    options?: WriteMessagesOptions,
  ): MaybePromise<WriteMessagesResult>;
  /**
   * Optional: `true` when `writeMessages` honours `options.requireRegistered` (the registry lives
   * in the same store). A SessionManager over that registry then checks that a session exists and
   * appends to it in one write (`SessionManager.appendToExisting`); otherwise it reads the
   * registry first.
   */
  readonly insertChecksRegistry?: boolean;
  /**
   * Optional: `true` when `writeMessages` honours `options.requireParent`. An append that must
   * not land anywhere but under its given parent (the server's `parentId`) is then one write;
   * otherwise the Session reads the parent first, under its append lock.
   */
  readonly insertChecksParent?: boolean;
  /**
   * Optional: `true` when `importRecords` honours `records.reattach` (moves stored roots under a
   * message it inserts, in the same atomic write). Without it the Session passes no `reattach`,
   * and such roots stay where they are.
   */
  readonly importReattaches?: boolean;
  /**
   * Replace the stored content of the message with this id; parent and order unchanged; no-op if
   * absent. `json`, when given, is `JSON.stringify(message)`, already validated (as in `MessageWrite`).
   */
  updateMessage(message: SessionMessage, json?: string): MaybePromise<void>;
  /** Delete these messages (unknown ids ignored), re-parenting children and repairing overlays (docs/behavior/messages-and-tree.md). */
  deleteMessages(ids: readonly string[]): MaybePromise<void>;
  /** Delete every message, overlay and index row of this session. */
  clearMessages(): MaybePromise<void>;
  /** Store an overlay and return it. */
  addCompaction(
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): MaybePromise<StoredCompaction>;
  /** Every overlay of this session, superseded ones included, oldest first. */
  getCompactions(): MaybePromise<StoredCompaction[]>;

  /** Optional: full-text search within this session (docs/behavior/search.md). Without it `session.search()` throws. */
  searchMessages?(
    query: string,
    limit?: number,
    options?: TextSearchOptions,
  ): MaybePromise<SearchResult[]>;
  /** Optional: byte-budgeted suffix of the path to `leafId` (docs/behavior/history.md). */
  getRecentHistory?(
    leafId: string | null | undefined,
    maxContentBytes: number,
    minRecentMessages?: number,
  ): MaybePromise<RecentHistoryResult>;
  /** Optional: `{ id, role, bytes }` per row on the path, without reading content. */
  getHistoryRowStats?(leafId?: string | null): MaybePromise<HistoryRowStat[]>;
  /**
   * Optional: `{ id, bytes }` per stored row on the path to `leafId` (latest leaf by default), root
   * first, without reading content; `[]` for unknown ids. With `getMessagesByIds`, lets
   * `session.history()` stream a path of any length in bounded memory (docs/behavior/history.md).
   */
  getPathIds?(leafId?: string | null): MaybePromise<PathEntry[]>;
  /**
   * Optional: the ids on the path to `leafId` (latest leaf by default), in no order, read from the
   * links alone; empty for unknown ids. What explained search checks `onActiveBranch` and
   * `scope: "branch"` against (docs/search.md); the caller never changes the set.
   */
  getPathIdSet?(leafId?: string | null): MaybePromise<ReadonlySet<string>>;
  /**
   * Optional: the stored messages with these ids, raw (no overlays), one entry per id in the given
   * order: `null` for an id that is not in the session or whose row is unreadable.
   */
  getMessagesByIds?(
    ids: readonly string[],
  ): MaybePromise<Array<SessionMessage | null>>;
  /** Optional: a writable context provider stored beside the messages, used by auto-wiring (docs/behavior/session-setup.md). */
  createContextProvider?(key: string): unknown;
  /** Optional: durable block history (docs/behavior/context-blocks.md) stored beside the messages; in memory without it. */
  createBlockHistory?(): BlockHistoryStore;
  /** Optional: delete one overlay of this session; `false` if absent (docs/behavior/overlays.md). */
  deleteCompaction?(id: string): MaybePromise<boolean>;
  /**
   * Optional: inserts exported records as they were (ids, parents, insertion order, times) and
   * their overlays, atomically; throws `MESSAGE_EXISTS` and writes nothing when an id is taken.
   * Used by snapshot import and fork (docs/behavior/manager.md).
   */
  importRecords?(records: ImportRecords): MaybePromise<void>;
  /**
   * Optional: the token estimate the store was created with (docs/token-estimation.md):
   * `"multilingual"` for stores created since it became the default, `"heuristic"` for older
   * ones. The Session counts with it when `compactAfter()` has no `tokenCounter`; without this
   * method it uses the heuristic.
   */
  getTokenEstimate?(): MaybePromise<StoreTokenEstimate>;
  /** Optional: how many messages the session stores, every branch counted, without reading them. */
  countMessages?(): MaybePromise<number>;
  /** Optional: every message of the session, all branches, in insertion order (docs/behavior/manager.md). */
  exportMessages?(): MaybePromise<StoredMessageRecord[]>;
  /** Optional: a per-session config value (`assistant_config`), or `null`. */
  getConfig?(key: string): MaybePromise<string | null>;
  /** Optional: sets (`null` deletes) a per-session config value. */
  setConfig?(key: string, value: string | null): MaybePromise<void>;
  /**
   * Optional: the same store scoped to another session id. Lets `forSession()` and the
   * SessionManager address many sessions in one store.
   */
  forSession?(sessionId: string): SessionProvider;
  /**
   * Optional: an object that identifies the underlying store. Sessions over the same store and
   * session id share one append lock within the process (docs/behavior/messages-and-tree.md). Defaults to the provider.
   */
  readonly storeIdentity?: object;
  /** Optional: the session id this provider is scoped to ("" = no namespace). */
  readonly sessionId?: string;
  /**
   * Optional: `true` when the store keeps inline file data (`data:` URLs) apart from its rows
   * (docs/behavior/storage.md#attachments), so that data does not count toward the row-size limit.
   */
  readonly storesAttachments?: boolean;
  /**
   * Optional: the embeddings of the store this provider is a session of (the same object its
   * `Backend` has). `withEmbeddings()` on a Session reaches the store through it; without it
   * that throws `NOT_SUPPORTED` on first use.
   */
  embeddings?(): BackendEmbeddings;
  /**
   * Optional: calls `listener` once per committed write to this session (every session with
   * `allSessions`), in commit order, including writes by other processes; returns the function
   * that stops it (docs/behavior/events-and-audit.md, "Change feed").
   */
  watchChanges?(
    listener: ChangeListener,
    options?: WatchChangesOptions,
  ): Unsubscribe;
}

/**
 * A provider written for the seed API: every required member but `writeMessages`, and
 * `appendMessage(message, parentId?)` instead, answering `true`/`false` (inserted / id taken) or
 * nothing (read as inserted). `Session.create()` and `new Session()` take it and adapt it to
 * `writeMessages` (one `appendMessage` per message; not atomic across a batch).
 */
export type SeedSessionProvider = Omit<
  SessionProvider,
  "writeMessages" | "forSession"
> & {
  appendMessage(
    message: SessionMessage,
    parentId?: string | null,
  ): MaybePromise<boolean | void>;
  writeMessages?: undefined;
  forSession?(sessionId: string): SessionProvider | SeedSessionProvider;
};
