import type {
  ChangeEvent,
  Session as ArborSession,
  SessionMessage,
  StoredCompaction,
  Unsubscribe,
} from "../session/index.js";
import type { SessionChangeEvent, SessionChangeListener } from "./types.js";

/**
 * The change feed behind `Sessions.subscribe()`: Arbor's store-wide `watch` feed, translated to
 * events that carry the stored message. Events are built and delivered one at a time, so
 * listeners see commit order.
 *
 * An event of another writer is read back from the store when it is delivered, which on a store
 * whose feed lags (PostgreSQL's notifications) may be after a later write changed or deleted its
 * row. The adapter's own writes therefore leave what they stored here (`note`, bounded in size),
 * and their events carry exactly that.
 */
export class SessionsFeed {
  readonly #listeners = new Set<SessionChangeListener>();
  readonly #parents = new Map<string, string | null>();
  readonly #written = new Map<string, SessionMessage | StoredCompaction>();
  #queue: Promise<void> = Promise.resolve();
  #stop: Unsubscribe | null = null;

  /**
   * @param open - The Arbor session of an id, to read the messages an event names.
   * @param watch - Starts Arbor's feed over every session of the store.
   */
  constructor(
    private readonly open: (sessionId: string) => ArborSession,
    private readonly watch: (
      listener: (event: ChangeEvent) => Promise<void>,
    ) => Unsubscribe,
  ) {}

  /** Adds a listener; the store's feed runs while at least one is subscribed. */
  subscribe(listener: SessionChangeListener): () => void {
    this.#listeners.add(listener);
    this.#stop ??= this.watch((event) =>
      this.#enqueue(() => this.#translate(event)),
    );
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size > 0 || !this.#stop) return;
      this.#stop();
      this.#stop = null;
      this.#written.clear();
      this.#parents.clear();
    };
  }

  /** Whether anyone listens (nothing is recorded for events otherwise). */
  get active(): boolean {
    return this.#listeners.size > 0;
  }

  /**
   * Remembers the parent a write stored its message under, for its event: an import's, and an
   * append's with an explicit `parentId`, so a host can tell which branch the message joined.
   */
  noteParent(sessionId: string, id: string, parentId: string | null): void {
    if (this.active) remember(this.#parents, key(sessionId, id), parentId);
  }

  /** Drops a parent noted for a write that stored nothing. */
  forgetParent(sessionId: string, id: unknown): void {
    if (typeof id === "string") this.#parents.delete(key(sessionId, id));
  }

  /** Remembers what a write through this adapter stored, in case it is gone when its event is read. */
  note(
    type: "append" | "update" | "import" | "compaction",
    sessionId: string,
    stored: SessionMessage | StoredCompaction,
  ): void {
    if (this.active)
      remember(
        this.#written,
        `${type}\u0000${key(sessionId, stored.id)}`,
        stored,
      );
  }

  // --- Internal helpers ---

  #enqueue(build: () => Promise<SessionChangeEvent[]>): Promise<void> {
    const run = this.#queue.then(async () => {
      for (const event of await build()) await this.#deliver(event);
    });
    // A failed read must not stall the queue for the events after it.
    this.#queue = run.catch((error: unknown) =>
      console.warn("[arbor] [sessions] change event dropped:", error),
    );
    return this.#queue;
  }

  async #deliver(event: SessionChangeEvent): Promise<void> {
    for (const listener of [...this.#listeners]) {
      try {
        await listener(event);
      } catch (error) {
        // The write is committed: a failing listener must not reject it nor stop the others.
        console.warn("[arbor] [sessions] subscriber failed:", error);
      }
    }
  }

  async #translate(event: ChangeEvent): Promise<SessionChangeEvent[]> {
    const { sessionId, ids } = event;
    switch (event.type) {
      case "delete":
        return [{ type: "delete", sessionId, messageIds: [...ids] }];
      case "clear":
        return [{ type: "clear", sessionId }];
      case "compaction":
        return this.#compactions(sessionId, ids);
      case "reset":
        // Only a resumed watch gets one; this adapter never resumes.
        return [];
      case "block":
        // Context blocks are not part of this API's session model.
        return [];
      default:
        return this.#messages(event.type, sessionId, ids);
    }
  }

  async #messages(
    type: "append" | "update" | "import",
    sessionId: string,
    ids: readonly string[],
  ): Promise<SessionChangeEvent[]> {
    const session = this.open(sessionId);
    const events: SessionChangeEvent[] = [];
    for (const id of ids) {
      const noted = this.#parents.get(key(sessionId, id));
      const parentId = noted ?? null;
      this.#parents.delete(key(sessionId, id));
      // A write through this adapter: what it stored (the row may have changed or gone since);
      // another writer's: the row as it is now.
      const message =
        (this.#take(type, sessionId, id) as SessionMessage | undefined) ??
        (await session.getMessage(id));
      if (!message) continue;
      if (type === "append")
        events.push({
          type,
          sessionId,
          message,
          ...(noted !== undefined ? { parentId: noted } : {}),
          inserted: true,
        });
      else if (type === "update") events.push({ type, sessionId, message });
      else events.push({ type, sessionId, message, parentId });
    }
    return events;
  }

  async #compactions(
    sessionId: string,
    ids: readonly string[],
  ): Promise<SessionChangeEvent[]> {
    const stored = await this.open(sessionId).getCompactions();
    return ids.map((id): SessionChangeEvent => {
      const noted = this.#take("compaction", sessionId, id) as
        StoredCompaction | undefined;
      const compaction = noted ?? stored.find((overlay) => overlay.id === id);
      // `addCompaction()` through this adapter is noted, and stores no provenance; `compact()`
      // stores measured provenance (`meta`). A removed overlay also changes the path: `compact`.
      return compaction && compaction.meta === undefined
        ? { type: "compaction", sessionId, compaction }
        : { type: "compact", sessionId };
    });
  }

  #take(type: string, sessionId: string, id: string) {
    const name = `${type}\u0000${key(sessionId, id)}`;
    const value = this.#written.get(name);
    this.#written.delete(name);
    return value;
  }
}

/** Most remembered writes; the oldest go first (their events were long delivered or lost). */
const MAX_REMEMBERED = 1000;

function remember<V>(map: Map<string, V>, name: string, value: V): void {
  map.delete(name);
  map.set(name, value);
  if (map.size > MAX_REMEMBERED) map.delete(map.keys().next().value!);
}

function key(sessionId: string, id: string): string {
  return `${sessionId}\u0000${id}`;
}
