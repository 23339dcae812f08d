/**
 * The change feed's event shape (docs/behavior/events-and-audit.md, "Change feed"): one event per
 * committed write, in commit order, from any process that writes to the same store.
 */

/** What a committed write did. */
export type ChangeType =
  "append" | "update" | "delete" | "clear" | "compaction" | "import";

/** One committed change to one session. */
export interface ChangeEvent {
  type: ChangeType;
  sessionId: string;
  /**
   * The message ids the write affected (`[]` for `clear`); for `compaction`, the id of the
   * overlay that was added or deleted.
   */
  ids: string[];
  /** ISO-8601 UTC with milliseconds: when the change was recorded. */
  at: string;
}

/** Receives change events; a returned Promise is awaited before the next event is delivered. */
export type ChangeListener = (event: ChangeEvent) => void | Promise<void>;

/** Options of `SessionProvider.watchChanges`. */
export interface WatchChangesOptions {
  /** Every session of the store, not only the provider's own session. Default `false`. */
  allSessions?: boolean;
}

/** Stops a watch: no event is delivered after it returns, and timers and connections are released. */
export type Unsubscribe = () => void;
