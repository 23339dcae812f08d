import { nowIso } from "./now-iso.js";
import type {
  ChangeEvent,
  ChangeListener,
  ChangePosition,
  ChangeType,
  ChangeWatchScope,
  Unsubscribe,
} from "../contracts/changes.js";
import { invalidArgument } from "../errors/index.js";

/** Change-log entries a store keeps for resumed watches; older ones are trimmed. */
export const CHANGE_LOG_RETENTION = 10_000;

/**
 * The in-process half of the change feed shared by every backend (docs/behavior/events-and-audit.md,
 * "Change feed"): a backend publishes each committed change once, in commit order, and the feed
 * queues it per watcher. Delivery is asynchronous and one event at a time per watcher, so a slow
 * listener delays only itself and a writer never waits for, or sees an error from, a listener.
 *
 * A resumed watch is added `held`: live events queue up while the backend reads what the watch
 * missed, and `resume()` delivers those first, then the held live events the catch-up did not
 * already cover (`follow`, told by the `token` the backend published each event with).
 */
export class ChangeFeed<Token = undefined> {
  readonly #watchers = new Set<Watcher<Token>>();

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
    return this.addHeld(listener, sessionId, onIdle, false).stop;
  }

  /** Adds a watcher whose live events wait for `resume()` (see the class comment). */
  addHeld(
    listener: ChangeListener,
    sessionId: string | null,
    onIdle?: () => void,
    held = true,
  ): HeldWatch<Token> {
    const watcher = new Watcher<Token>(listener, sessionId, held);
    this.#watchers.add(watcher);
    return {
      stop: () => {
        if (watcher.closed) return;
        watcher.closed = true;
        this.#watchers.delete(watcher);
        if (this.#watchers.size === 0) onIdle?.();
      },
      resume: (missed, skip) => watcher.resume(missed, skip),
    };
  }

  /** Queues `event` for every watcher that wants it. */
  publish(event: ChangeEvent, token?: Token): void {
    for (const watcher of this.#watchers) {
      if (watcher.sessionId === null || watcher.sessionId === event.sessionId)
        watcher.push(event, token as Token);
    }
  }
}

/** A watcher added with `ChangeFeed.addHeld`. */
export interface HeldWatch<Token> {
  stop: Unsubscribe;
  /**
   * Delivers `missed` (the catch-up, oldest first), then the live events held meanwhile and all
   * later ones, each as `follow` returns it: `null` for one the catch-up covered, else the event,
   * whose cursor `follow` may restate so it also covers what the catch-up delivered.
   */
  resume(missed: readonly ChangeEvent[], follow?: FollowCatchUp<Token>): void;
}

/** How a resumed watch takes a live event after its catch-up (`HeldWatch.resume`). */
export type FollowCatchUp<Token> = (
  event: ChangeEvent,
  token: Token,
) => ChangeEvent | null;

/**
 * A bounded change log kept in this process, with the positions of the change feed: what the
 * in-memory store uses, and what a custom provider can compose to offer `watchChanges` for the
 * writes it makes itself (docs/custom-providers.md). `record()` after each applied write;
 * `watch()` is the provider's `watchChanges`. Positions are the log's `seq` (the cursor is its
 * decimal text), valid while this object lives.
 */
export class InProcessChangeLog {
  readonly #feed = new ChangeFeed();
  readonly #entries: ChangeEvent[] = [];
  #seq = 0;
  #trimmed = 0;

  constructor(readonly retention: number = CHANGE_LOG_RETENTION) {}

  /** Records one applied change and delivers it to the watchers of its session. */
  record(sessionId: string, type: ChangeType, ids: readonly string[]): void {
    const seq = ++this.#seq;
    const event: ChangeEvent = {
      type,
      sessionId,
      ids: [...ids],
      at: nowIso(),
      seq,
      cursor: String(seq),
    };
    this.#entries.push(event);
    if (this.#entries.length > this.retention) {
      // Trimmed in batches, so a write costs O(1) on average.
      const slack = Math.min(TRIM_SLACK, Math.floor(this.retention / 10));
      const drop = this.#entries.length - this.retention + slack;
      this.#trimmed = this.#entries[drop - 1]!.seq;
      this.#entries.splice(0, drop);
    }
    if (this.#feed.size > 0) this.#feed.publish(event);
  }

  /** Watches one session or every session, resuming after `scope.after` when given. */
  watch(listener: ChangeListener, scope: ChangeWatchScope): Unsubscribe {
    const { sessionId } = scope;
    if (scope.after === undefined) return this.#feed.add(listener, sessionId);
    const after = parseSeqPosition(scope.after);
    const watch = this.#feed.addHeld(listener, sessionId);
    if (after < this.#trimmed || after > this.#seq) {
      watch.resume([resetEvent(sessionId, this.#seq, String(this.#seq))]);
    } else {
      const first = this.#entries.findIndex((event) => event.seq > after);
      const missed = first < 0 ? [] : this.#entries.slice(first);
      watch.resume(
        missed.filter(
          (event) => sessionId === null || event.sessionId === sessionId,
        ),
      );
    }
    return watch.stop;
  }
}

/**
 * The `seq` a position names on a store whose `seq` order is its commit order (SQLite, memory):
 * a non-negative integer, or its decimal text (the cursor those stores give).
 */
export function parseSeqPosition(after: ChangePosition): number {
  const value =
    typeof after === "string" && /^\d{1,16}$/.test(after)
      ? Number(after)
      : after;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw invalidArgument(
      `watch({ after }) needs a position from an earlier event of this store (its cursor or seq), not ${JSON.stringify(after)}`,
    );
  }
  return value;
}

/** The `reset` a resumed watch gets when its position is older than the log (or unknown). */
export function resetEvent(
  sessionId: string | null,
  seq: number,
  cursor: string,
): ChangeEvent {
  return {
    type: "reset",
    sessionId: sessionId ?? "",
    ids: [],
    at: new Date().toISOString(),
    seq,
    cursor,
  };
}

/** A change event as stored in a change log row (`ids` as JSON text). */
export function changeFromRow(
  row: {
    seq: number | string;
    session_id: string;
    type: string;
    ids: string | string[];
    at: string | Date;
  },
  cursor: string = String(row.seq),
): ChangeEvent {
  return {
    type: row.type as ChangeEvent["type"],
    sessionId: row.session_id,
    ids:
      typeof row.ids === "string" ? (JSON.parse(row.ids) as string[]) : row.ids,
    at: row.at instanceof Date ? row.at.toISOString() : row.at,
    seq: Number(row.seq),
    cursor,
  };
}

// --- Internal helpers ---

const TRIM_SLACK = 100;

class Watcher<Token> {
  closed = false;
  readonly #queue: ChangeEvent[] = [];
  #held: Array<[ChangeEvent, Token]> | null;
  #follow: FollowCatchUp<Token> | undefined;
  #draining = false;
  #warned = false;

  constructor(
    readonly listener: ChangeListener,
    readonly sessionId: string | null,
    held: boolean,
  ) {
    this.#held = held ? [] : null;
  }

  push(event: ChangeEvent, token: Token): void {
    if (this.#held) {
      this.#held.push([structuredClone(event), token]);
      return;
    }
    const followed = this.#follow ? this.#follow(event, token) : event;
    if (followed === null) return;
    this.#queue.push(structuredClone(followed));
    this.#kick();
  }

  resume(missed: readonly ChangeEvent[], follow?: FollowCatchUp<Token>): void {
    const held = this.#held ?? [];
    this.#held = null;
    this.#follow = follow;
    for (const event of missed) this.#queue.push(structuredClone(event));
    for (const [event, token] of held) {
      const followed = follow ? follow(event, token) : event;
      if (followed !== null) this.#queue.push(followed);
    }
    this.#kick();
  }

  #kick(): void {
    if (this.#draining || this.#queue.length === 0) return;
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
    if (this.closed) this.#queue.length = 0;
    this.#draining = false;
  }
}
