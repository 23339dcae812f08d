import type {
  ChangeFeedSource,
  ChangeListener,
  ChangeType,
  Unsubscribe,
} from "../../session/contracts/changes.js";
import { InProcessChangeLog } from "../../session/state/change-feed.js";

/**
 * The store a change log belongs to: any object, the `MemoryStore` in practice (the store itself
 * records its block writes here, so this module does not import it).
 */
type MemoryStore = object;

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
  changeLog(store).record(sessionId, type, ids);
}

/** Watches one session (`sessionId`) or every session (`null`) of the store. */
export function watchMemoryChanges(
  store: MemoryStore,
  sessionId: string | null,
  listener: ChangeListener,
): Unsubscribe {
  return changeLog(store).watch(listener, { sessionId });
}

/** The store's change feed, as its `Backend` declares it. */
export function memoryChangeFeed(store: MemoryStore): ChangeFeedSource {
  return {
    watch: (listener, scope) => changeLog(store).watch(listener, scope),
  };
}

// --- Internal helpers ---

const logs = new WeakMap<MemoryStore, InProcessChangeLog>();

function changeLog(store: MemoryStore): InProcessChangeLog {
  let log = logs.get(store);
  if (!log) {
    log = new InProcessChangeLog();
    logs.set(store, log);
  }
  return log;
}
