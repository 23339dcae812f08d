/** What `SessionManager.erase()` and `prune()` remove and report (docs/behavior/erase-and-retention.md). */

/**
 * What `erase()` removes: one session, every session of a tenant (`ownerId`), or some messages
 * of one session.
 */
export type EraseTarget =
  | { sessionId: string; messageIds?: undefined; ownerId?: undefined }
  | { ownerId: string; sessionId?: undefined; messageIds?: undefined }
  | { sessionId: string; messageIds: readonly string[]; ownerId?: undefined };

/** Rows removed, counted per kind. */
export interface EraseCounts {
  /** Registry rows (with their usage counters). */
  sessions: number;
  /** Message rows. */
  messages: number;
  /** Overlays: those whose range is gone and those that summarized an erased message. */
  overlays: number;
  /** Rows of a separate search index (SQLite FTS5); 0 where the index lives in the message row. */
  indexRows: number;
  /** Block history entries written from the session (or, for messages, by their tool calls). */
  blockVersions: number;
  /** Stored attachments whose last reference went. */
  attachments: number;
  /** Audit events of the session, or that quote an erased message or overlay. */
  auditEvents: number;
  /** Per-session config rows (owner, metadata, the branch pointer, …). */
  configRows: number;
  /** Context rows the session owned: auto-wired blocks and its cached prompt. */
  contextRows: number;
  /** Change-log rows of the session (they hold ids, never content). */
  changeLogRows: number;
  /** Stored embedding vectors of the erased messages and overlays (`withEmbeddings()`). */
  vectors: number;
  /** Embeddings still queued for the erased messages and overlays. */
  queuedEmbeddings: number;
}

/** The proof of an `erase()`: what was removed, counted per kind, and when. */
export interface EraseReceipt extends EraseCounts {
  /** ISO-8601 UTC with milliseconds: when the erase finished. */
  erasedAt: string;
  /**
   * Stores the erase could not reach, by name (e.g. an audit sink without `erase`): whatever
   * they hold about the target is still there.
   */
  notCovered: string[];
}

/** A point in time for `prune()`: a `Date`, or an age in milliseconds before now. */
export type PruneCutoff = Date | number;

/** What `prune()` deletes (docs/behavior/erase-and-retention.md#prune). */
export interface PruneOptions {
  /**
   * Sessions whose age date is before this go (unless kept by `keepLatest`): the later of their
   * last update and when they entered this store, so a conversation imported today with its old
   * dates is kept as new.
   */
  olderThan?: PruneCutoff;
  /** The newest this many sessions (list order) are always kept; alone, every other session goes. */
  keepLatest?: number;
  /** Branches off the active path whose messages are all older than this go. */
  abandonedBranchesOlderThan?: PruneCutoff;
  /** Only count what would go; write nothing. */
  dryRun?: boolean;
  /** Only this tenant's sessions. */
  ownerId?: string;
}

/** What `prune()` removed (or, with `dryRun`, would remove). */
export interface PruneReceipt extends EraseCounts {
  /** ISO-8601 UTC with milliseconds: when the prune finished. */
  prunedAt: string;
  dryRun: boolean;
  /** Ids of the whole sessions deleted. */
  sessionIds: string[];
  /**
   * The sessions deleted, in `sessionIds` order, each with the date its age counted from: the
   * later of its last update and when it entered this store (an import's `import.importedAt`).
   */
  prunedSessions: PrunedSession[];
  /** Abandoned branches deleted (each a subtree off an active path). */
  branches: number;
  notCovered: string[];
}

/** A session a prune deleted (or, in a dry run, would delete). */
export interface PrunedSession {
  id: string;
  name: string;
  /** ISO 8601 UTC: the later of the session's last update and when it entered this store. */
  activeAt: string;
}

/** What a backend erases in one step: a whole session (`messageIds: null`) or some messages. */
export interface StoreEraseTarget {
  sessionId: string;
  messageIds: readonly string[] | null;
  /** Context rows the session owns (whole-session targets only). */
  contextKeys: readonly string[];
}

/** A backend's answer: the counts, and the ids the audit sink must forget. */
export interface StoreEraseResult {
  counts: EraseCounts;
  /** Messages that were (or would be) erased. */
  messageIds: string[];
  /** Overlays that were (or would be) dropped. */
  overlayIds: string[];
}

/** What an audit sink forgets: a session's events, or those that mention these ids. */
export interface AuditEraseTarget {
  sessionId: string;
  /** `null`: every event of the session. */
  ids: readonly string[] | null;
}

/** Counts with every kind at zero. */
export function zeroCounts(): EraseCounts {
  return {
    sessions: 0,
    messages: 0,
    overlays: 0,
    indexRows: 0,
    blockVersions: 0,
    attachments: 0,
    auditEvents: 0,
    configRows: 0,
    contextRows: 0,
    changeLogRows: 0,
    vectors: 0,
    queuedEmbeddings: 0,
  };
}

/** Adds `more` into `into`, kind by kind. */
export function addCounts(into: EraseCounts, more: EraseCounts): EraseCounts {
  for (const key of Object.keys(into) as Array<keyof EraseCounts>)
    into[key] += more[key];
  return into;
}
