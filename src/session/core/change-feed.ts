import type {
  ChangeEvent,
  ChangeListener,
  Unsubscribe,
} from "../contracts/changes.js";

/**
 * The in-process half of the change feed shared by every backend (docs/behavior/events-and-audit.md,
 * "Change feed"): a backend publishes each committed change once, in commit order, and the feed
 * queues it per watcher. Delivery is asynchronous and one event at a time per watcher, so a slow
 * listener delays only itself and a writer never waits for, or sees an error from, a listener.
 */
export class ChangeFeed {
  readonly #watchers = new Set<Watcher>();

  /** Number of active watchers. */
  get size(): number {
    return this.#watchers.size;
  }

  /**
   * Adds a watcher of one session (`sessionId`) or of every session (`null`). `onIdle` runs when
   * the last watcher leaves, so a backend can stop its timers and connections.
   */
  add(
    listener: ChangeListener,
    sessionId: string | null,
    onIdle?: () => void,
  ): Unsubscribe {
    const watcher = new Watcher(listener, sessionId);
    this.#watchers.add(watcher);
    return () => {
      if (watcher.closed) return;
      watcher.closed = true;
      this.#watchers.delete(watcher);
      if (this.#watchers.size === 0) onIdle?.();
    };
  }

  /** Queues `event` for every watcher that wants it. */
  publish(event: ChangeEvent): void {
    for (const watcher of this.#watchers) {
      if (watcher.sessionId === null || watcher.sessionId === event.sessionId)
        watcher.push(event);
    }
  }
}

/** A change event as stored in a change log row (`ids` as JSON text). */
export function changeFromRow(row: {
  session_id: string;
  type: string;
  ids: string | string[];
  at: string | Date;
}): ChangeEvent {
  return {
    type: row.type as ChangeEvent["type"],
    sessionId: row.session_id,
    ids:
      typeof row.ids === "string" ? (JSON.parse(row.ids) as string[]) : row.ids,
    at: row.at instanceof Date ? row.at.toISOString() : row.at,
  };
}

// --- Internal helpers ---

class Watcher {
  closed = false;
  readonly #queue: ChangeEvent[] = [];
  #draining = false;
  #warned = false;

  constructor(
    readonly listener: ChangeListener,
    readonly sessionId: string | null,
  ) {}

  push(event: ChangeEvent): void {
    this.#queue.push(structuredClone(event));
    if (this.#draining) return;
    this.#draining = true;
    void Promise.resolve().then(() => this.#drain());
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0 && !this.closed) {
      const event = this.#queue.shift()!;
      try {
        await this.listener(event);
      } catch (error) {
        // Never thrown into the writer: reported once per watcher, later events still flow.
        if (!this.#warned) {
          this.#warned = true;
          console.warn(
            "[arbor] A change-feed listener threw; later errors of this listener are not reported:",
            error,
          );
        }
      }
    }
    this.#queue.length = 0;
    this.#draining = false;
  }
}
