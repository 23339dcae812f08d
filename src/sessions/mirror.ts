import type { SessionMessage } from "../session/index.js";
import type {
  SessionChangeEvent,
  SessionChangeListener,
  SessionMirrorOptions,
} from "./types.js";

/**
 * The listener behind `session.mirror()`: for one session, `intercept` first (an event it returns
 * `true` for is left to it), then the default reduction. An append replaces the cached entry with
 * the same id, or pushes it; an update replaces it, and is ignored when the host's array does not
 * hold the id; a delete filters; a clear empties. Imports and compactions change the path underneath the
 * cache in ways a patch cannot express, so only `intercept` handles them.
 *
 * The reduction reads only `id` of a cached entry, so it works on `{ id }` whatever the host's
 * entry type is; without `transform` an entry is the stored message itself.
 */
export function mirrorListener(
  sessionId: string,
  options: SessionMirrorOptions<{ id: string }>,
): SessionChangeListener {
  const transform = (message: SessionMessage): { id: string } =>
    options.transform ? options.transform(message) : message;
  return async (event) => {
    if (event.sessionId !== sessionId) return;
    if (options.intercept && (await options.intercept(event))) return;
    reduce(event, options, transform);
  };
}

// --- Internal helpers ---

function reduce<M extends { id: string }>(
  event: SessionChangeEvent,
  options: SessionMirrorOptions<M>,
  transform: (message: SessionMessage) => M,
): void {
  switch (event.type) {
    case "append":
    case "update": {
      const messages = options.get();
      const entry = transform(event.message);
      const index = messages.findIndex((cached) => cached.id === entry.id);
      // An update for a message the host no longer holds (it dropped or never loaded it) is not
      // a reason to add it back: only an append adds an entry.
      if (index === -1 && event.type === "update") return;
      const previous = index === -1 ? undefined : messages[index];
      if (index === -1) messages.push(entry);
      else messages[index] = entry;
      options.onApplied?.(event, entry, previous);
      return;
    }
    case "delete": {
      const removed = new Set(event.messageIds);
      options.set(options.get().filter((cached) => !removed.has(cached.id)));
      return;
    }
    case "clear":
      options.set([]);
      return;
    default:
      return;
  }
}
