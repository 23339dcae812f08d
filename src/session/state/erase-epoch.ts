/*
 * The erase epoch of docs/behavior/erase-and-retention.md, apart from the erase rules so that
 * every Session (which checks it) does not load them.
 */

/**
 * The erase epoch of a (store, session): bumped by every erase, under the session's append lock.
 * A compaction reads it before it reads the history and stores its overlay only if it is
 * unchanged (session-compaction.ts), so a summary of erased messages is never stored afterwards.
 */
export function eraseEpoch(store: object, sessionId: string): number {
  return epochs.get(store)?.get(sessionId) ?? 0;
}

/** Marks an erase of the session (see `eraseEpoch`). */
export function bumpEraseEpoch(store: object, sessionId: string): void {
  let bySession = epochs.get(store);
  if (!bySession) {
    bySession = new Map();
    epochs.set(store, bySession);
  }
  bySession.set(sessionId, eraseEpoch(store, sessionId) + 1);
}

const epochs = new WeakMap<object, Map<string, number>>();
