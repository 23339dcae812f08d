import type {
  ChangeListener,
  ChangeType,
  Unsubscribe,
} from "../../session/contracts/changes.js";
import { ChangeFeed } from "../../session/core/change-feed.js";
import type { MemoryStore } from "./memory-store.js";

/**
 * The in-memory store's change feed (docs/behavior/events-and-audit.md, "Change feed"): the store
 * lives in one process, so a write publishes its event directly, after it is applied.
 */
export function publishMemoryChange(
  store: MemoryStore,
  sessionId: string,
  type: ChangeType,
  ids: string[],
): void {
  const feed = feeds.get(store);
  if (!feed || feed.size === 0) return;
  feed.publish({ type, sessionId, ids, at: new Date().toISOString() });
}

/** Watches one session (`sessionId`) or every session (`null`) of the store. */
export function watchMemoryChanges(
  store: MemoryStore,
  sessionId: string | null,
  listener: ChangeListener,
): Unsubscribe {
  let feed = feeds.get(store);
  if (!feed) {
    feed = new ChangeFeed();
    feeds.set(store, feed);
  }
  return feed.add(listener, sessionId);
}

// --- Internal helpers ---

const feeds = new WeakMap<MemoryStore, ChangeFeed>();
