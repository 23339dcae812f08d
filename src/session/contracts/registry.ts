import type { SessionInfo } from "./session-info.js";
import type {
  MatchMode,
  MaybePromise,
  PrefixMode,
  SearchResult,
} from "./types.js";

/** Where a page of `list()` continues: after this row in list order. */
export interface ListPosition {
  updated_at: string;
  created_at: string;
  id: string;
}

export interface RegistryListOptions {
  ownerId?: string;
  limit?: number;
  after?: ListPosition;
  /**
   * Which sessions by the one that started them (`parent_session_id`): omitted, every session; a
   * session id, the sessions it started; `null`, the top level: sessions without a parent, or
   * whose parent is not a session of the listing (erased, or another owner's when `ownerId` is
   * given), so no session is left out of both.
   */
  parentSessionId?: string | null;
}

export interface RegistrySearchOptions {
  limit: number;
  sessionIds?: readonly string[];
  ownerId?: string;
  /** `"any"` (default): ranked any-term retrieval; `"all"`: every term must match. */
  match?: MatchMode;
  /** ISO-8601 UTC; messages created at or after it. */
  since?: string;
  /** ISO-8601 UTC; messages created before it. */
  until?: string;
  /** Which terms match as word prefixes (`TextSearchOptions.prefix`). */
  prefix?: PrefixMode;
  /** How many newest matches are scored (`TextSearchOptions.rankWindow`). */
  rankWindow?: number;
}

/** A message of a session, by its session's id and its own. */
export interface MessageRef {
  sessionId: string;
  id: string;
}

/** An overlay found by its summary: which session, which overlay. */
export interface SummaryHit {
  sessionId: string;
  id: string;
}

/**
 * A listed session with what a listing shows beside its row (`listDetailed()`): the owner, the
 * metadata entries and the number of stored messages, every branch counted.
 */
export interface SessionListing {
  info: SessionInfo;
  ownerId: string | null;
  metadata: Record<string, string>;
  messageCount: number;
  /**
   * How many sessions it started (`parent_session_id` naming it) under the listing's `ownerId`.
   * Optional for a registry of its own: the manager counts them when it is missing.
   */
  childCount?: number;
}

/**
 * Fields `update()` may change (`parent_session_id`: an import links a subagent session to its
 * session when that one arrives later).
 */
export type SessionInfoPatch = Partial<
  Pick<
    SessionInfo,
    | "name"
    | "parent_session_id"
    | "end_reason"
    | "model"
    | "source"
    | "updated_at"
  >
>;

/**
 * The SessionManager's registry of sessions (docs/behavior/manager.md, docs/behavior/storage.md): a seam separate from the message
 * store, with one implementation per backend (SQLite/Durable Object, PostgreSQL, in memory).
 * Per-session config (owner, metadata) lives here too (`assistant_config`).
 */
export interface SessionRegistry {
  /** Inserts a row. */
  insert(info: SessionInfo): MaybePromise<void>;
  /**
   * Optional: inserts the row and these config entries (a new session's owner and metadata) as
   * one atomic write: should it fail, neither the row nor any entry is stored, and no reader
   * ever sees the row with part of them. Without it the manager inserts the row, then sets each
   * entry.
   */
  insertWithConfig?(
    info: SessionInfo,
    config: Readonly<Record<string, string>>,
  ): MaybePromise<void>;
  get(id: string): MaybePromise<SessionInfo | null>;
  /**
   * Optional: the rows of those ids that exist, in any order, read together: what a search reads
   * to name the sessions of its hits. Without it the manager calls `get()` per session.
   */
  getMany?(ids: readonly string[]): MaybePromise<SessionInfo[]>;
  /**
   * Rows ordered by `updated_at` desc, then `created_at` desc, then `id` asc; only rows after
   * `after` in that order; at most `limit`; only sessions owned by `ownerId` when given, and
   * only those `parentSessionId` selects when given.
   */
  list(options: RegistryListOptions): MaybePromise<SessionInfo[]>;
  /**
   * Optional: the rows of `list()` (same options, same order) with each one's owner, metadata
   * (config keys `meta:*`, the prefix dropped) and message count (a COUNT, like the provider's
   * `countMessages`), read together, so a page costs the same number of queries whatever its
   * length. Without it the manager reads them per row.
   */
  listDetailed?(options: RegistryListOptions): MaybePromise<SessionListing[]>;
  /** Changes fields of a row; `false` when there is none. */
  update(id: string, patch: SessionInfoPatch): MaybePromise<boolean>;
  /** Adds to the usage counters and sets `updated_at`; `false` when there is no row. */
  addUsage(
    id: string,
    inputTokens: number,
    outputTokens: number,
    cost: number,
    at: string,
  ): MaybePromise<boolean>;
  /** Sets `updated_at` if the row exists. */
  touch(id: string, at: string): MaybePromise<void>;
  /** Number of registered sessions. */
  count(): MaybePromise<number>;
  getConfig(sessionId: string, key: string): MaybePromise<string | null>;
  setConfig(sessionId: string, key: string, value: string): MaybePromise<void>;
  /**
   * Optional: sets the value only when the key has none, atomically, even against another process
   * over the same store; answers whether it was set. The server's `Idempotency-Key` claims a
   * write with it, so two attempts never both run (docs/server.md, "Retrying writes").
   */
  setConfigIfAbsent?(
    sessionId: string,
    key: string,
    value: string,
  ): MaybePromise<boolean>;
  /** Every config entry of a session whose key starts with `prefix`. */
  listConfig(
    sessionId: string,
    prefix: string,
  ): MaybePromise<Record<string, string>>;
  /**
   * Optional: claims a created context block (`manager.createContextBlock()`): sets the config
   * entry `block.configKey` to `definition` when the session has none, removes what an earlier
   * block of the label left (the content row under `block.contextKey`, the label's block
   * history), and records a `block` change naming `block.label`, as one atomic write. Answers
   * whether it was set; nothing is written when not. Without it the manager claims with
   * `setConfigIfAbsent`, and the change feed tells of a block created without content only at
   * its first write.
   */
  createBlock?(
    sessionId: string,
    block: CreatedBlockRows,
    definition: string,
  ): MaybePromise<boolean>;
  /**
   * Optional: deletes a created context block (`manager.deleteContextBlock()`): the config entry
   * `block.configKey`, the content row under `block.contextKey` and the block history of
   * `block.label`, and records a `block` change naming the label, as one atomic write. Answers
   * whether the entry was there; nothing is written when not. Without it `deleteContextBlock()`
   * throws `NOT_SUPPORTED`.
   */
  deleteBlock?(
    sessionId: string,
    block: CreatedBlockRows,
  ): MaybePromise<boolean>;
  /**
   * Full-text search over the messages of registered sessions (docs/behavior/manager.md): ranked
   * any-term by default, every term with `match: "all"`; all-term matches first, then relevance,
   * ties newest first; results carry `sessionId` and `createdAt`. `[]` for unsearchable queries.
   */
  search(
    query: string,
    options: RegistrySearchOptions,
  ): MaybePromise<SearchResult[]>;
  /**
   * Optional: which of `messages` (session id and message id) have no parent, each its
   * session's opening turn, read together in one indexed read: what a ranked search across
   * sessions reads to give a session's opening a share of its session's matches
   * (docs/search.md#evidence-across-sessions). Messages that are gone are left out. Without it
   * no candidate takes a share.
   */
  openings?(messages: ReadonlyArray<MessageRef>): MaybePromise<MessageRef[]>;
  /**
   * Optional: overlays of registered sessions whose summary matches every query term
   * (`summaryMatches`, docs/search.md), newest first, at most `limit`, under the same `sessionIds`
   * and `ownerId` filters as `search`. Explained `manager.search()` ranks them beside messages.
   */
  searchSummaries?(
    query: string,
    options: RegistrySearchOptions,
  ): MaybePromise<SummaryHit[]>;
  /**
   * Deletes the registry row and every row of the session, atomically: messages, overlays, index
   * rows, config, block history and the context rows under `contextKeys`. `false` (and nothing
   * deleted) when the session has no registry row.
   */
  deleteSession(
    id: string,
    contextKeys: readonly string[],
  ): MaybePromise<boolean>;
}

/** Where a created context block lives (`SessionRegistry.createBlock` and `deleteBlock`). */
export interface CreatedBlockRows {
  /** The block's label: the key of its block history, the id of its `block` change. */
  label: string;
  /** The config entry holding its definition (`block:<label>`). */
  configKey: string;
  /** The key of its content row (`<label>_<sessionId>`), as `deleteSession`'s `contextKeys`. */
  contextKey: string;
}

/** The list order of docs/behavior/manager.md as a comparator. */
export function compareListOrder(a: ListPosition, b: ListPosition): number {
  if (a.updated_at !== b.updated_at)
    return a.updated_at < b.updated_at ? 1 : -1;
  if (a.created_at !== b.created_at)
    return a.created_at < b.created_at ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
