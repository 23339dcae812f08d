import type {
  ChangeFeedSource,
  ChangeListener,
  ChangeType,
  Unsubscribe,
} from "../../session/contracts/changes.js";
import type { InProcessChangeLog } from "../../session/state/change-feed.js";

/**
 * The store a change log belongs to: the `MemoryStore`, which holds its own log (the store itself
 * records its block writes here, so this module does not import it).
 */
interface MemoryStore {
  readonly changes: InProcessChangeLog;
}

/**
 * The in-memory store's change feed (docs/behavior/events-and-audit.md, "Change feed"): the store
 * lives in one process, so a write records its event in the store's bounded log directly, after
 * it is applied, and a resumed watch reads back from that log.
 */
export function publishMemoryChange(
  store: MemoryStore,
  sessionId: string,
  type: ChangeType,
  ids: string[],
): void {
  store.changes.record(sessionId, type, ids);
}

/** Watches one session (`sessionId`) or every session (`null`) of the store. */
export function watchMemoryChanges(
  store: MemoryStore,
  sessionId: string | null,
  listener: ChangeListener,
): Unsubscribe {
  return store.changes.watch(listener, { sessionId });
}

/** The store's change feed, as its `Backend` declares it. */
export function memoryChangeFeed(store: MemoryStore): ChangeFeedSource {
  return {
    watch: (listener, scope) => store.changes.watch(listener, scope),
  };
}
