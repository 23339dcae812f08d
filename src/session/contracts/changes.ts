/**
 * The change feed's event shape (docs/behavior/events-and-audit.md, "Change feed"): one event per
 * committed write, in commit order, from any process that writes to the same store, each with a
 * position a later watch can resume from.
 */

/**
 * What a committed write did; `reset` is not a write: a resumed watch gets it first when its
 * position is older than the change log keeps (or unknown to the store), and re-reads the state.
 */
export type ChangeType =
  | "append"
  | "update"
  | "delete"
  | "clear"
  | "compaction"
  | "import"
  | "block"
  | "reset";

/** One committed change to one session. */
export interface ChangeEvent {
  type: ChangeType;
  /** The session written; for a `reset` of a store-wide watch, `""`. */
  sessionId: string;
  /**
   * The message ids the write affected (`[]` for `clear` and `reset`); for `compaction`, the id
   * of the overlay that was added or deleted; for `block` (a write to a writable context block,
   * recorded with its version in the block history), the block's label.
   */
  ids: string[];
  /** ISO-8601 UTC with milliseconds: when the change was recorded. */
  at: string;
  /**
   * The change's number in the store's change log. One session's changes have increasing
   * numbers in commit order, so a watch of that session resumes from it (`after: seq`); across
   * sessions the numbers may commit out of order (PostgreSQL), which `cursor` accounts for.
   */
  seq: number;
  /**
   * Opaque: the position just after this change. `watch(listener, { after: cursor })` delivers
   * every change of the watch's scope committed after this one and none before (store-wide
   * watches included), or a `reset` when the log no longer reaches back that far.
   */
  cursor: string;
}

/** Receives change events; a returned Promise is awaited before the next event is delivered. */
export type ChangeListener = (event: ChangeEvent) => void | Promise<void>;

/**
 * Where a watch resumes: an event's `cursor`, or, for a watch of one session, an event's `seq`.
 */
export type ChangePosition = string | number;

/** Options of `SessionProvider.watchChanges`. */
export interface WatchChangesOptions {
  /** Every session of the store, not only the provider's own session. Default `false`. */
  allSessions?: boolean;
  /**
   * Resume: deliver every change committed after this position first (an event's `cursor`, or
   * its `seq` for a watch of one session), then the live feed, each change once. A position the
   * change log no longer reaches (or does not know) gets one `reset` event instead.
   */
  after?: ChangePosition;
  /**
   * Called once with the position the watch starts after: `after` as text when given, else the
   * store's position when the watch began. A subscriber that keeps it can resume without a gap
   * even if it is gone before its first event.
   */
  onStart?: (position: string) => void;
}

/** What `ChangeFeedSource.watch` watches. */
export interface ChangeWatchScope {
  /** One session, or `null` for every session of the store. */
  sessionId: string | null;
  /** As `WatchChangesOptions.after`. */
  after?: ChangePosition;
  /** As `WatchChangesOptions.onStart`. */
  onStart?: (position: string) => void;
}

/**
 * A store's change feed as a declared capability (`Backend.changes`): every committed write,
 * from every process that writes to the store, with positions to resume from.
 */
export interface ChangeFeedSource {
  /** Starts a watch; throws `INVALID_ARGUMENT` for a malformed `after`. */
  watch(listener: ChangeListener, scope: ChangeWatchScope): Unsubscribe;
}

/** Stops a watch: no event is delivered after it returns, and timers and connections are released. */
export type Unsubscribe = () => void;
