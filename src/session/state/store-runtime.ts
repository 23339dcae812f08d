/*
 * What this process keeps for one store, and the one place that finds it by the store's identity.
 *
 * A store can be reached through many objects at once: two Sessions over one `sql` store, a
 * provider per request in a Durable Object, `sqlBackend(store)` called twice, a SessionManager
 * and a Session the application opened itself. Whatever serializes or announces per store has to
 * be shared by all of them, so it cannot live in any one of them: it lives in the store's
 * `StoreRuntime`, found by the identity every object over the store reports (`Backend.identity`,
 * a provider's `storeIdentity`, or the provider itself when it reports none). A backend finds its
 * runtime here when it is built over a store; a Session finds its provider's here when it is set
 * up (session-runtime.ts); everything else is handed the runtime or asks the object that holds it.
 */
import { KeyedMutex } from "./keyed-mutex.js";

/**
 * A kind of object a backend keeps once per store (its change hub, its `Backend`): a key into
 * `StoreRuntime.own`, typed by what it holds. Each backend declares its own slots.
 */
export class StoreSlot<T> {
  /** Ties the slot to the type of what it holds; never set. */
  declare readonly holds?: T;

  /** `name` is for debugging only: slots are told apart by identity. */
  constructor(readonly name: string) {}
}

/** The in-process state of one store, shared by every object over it. */
export class StoreRuntime {
  readonly #locks = new KeyedMutex();
  readonly #epochs = new Map<string, number>();
  readonly #owned = new Map<StoreSlot<unknown>, unknown>();

  /**
   * Runs `task` under the append lock of the session: appends, deletes, imports, compaction
   * overlays and erase steps of one session run one at a time in this process.
   */
  exclusive<T>(sessionId: string, task: () => Promise<T>): Promise<T> {
    return this.#locks.run(sessionId, task);
  }

  /**
   * The erase epoch of the session (docs/behavior/erase-and-retention.md): bumped by every erase,
   * under the session's append lock. A compaction reads it before it reads the history and stores
   * its overlay only if it is unchanged (session-compaction.ts), so a summary of erased messages
   * is never stored afterwards.
   */
  eraseEpoch(sessionId: string): number {
    return this.#epochs.get(sessionId) ?? 0;
  }

  /** Marks an erase of the session (see `eraseEpoch`). */
  bumpEraseEpoch(sessionId: string): void {
    this.#epochs.set(sessionId, this.eraseEpoch(sessionId) + 1);
  }

  /** The store's object of `slot`, if one was made. */
  find<T>(slot: StoreSlot<T>): T | undefined {
    return this.#owned.get(slot) as T | undefined;
  }

  /** The store's one object of `slot`, made by `create` the first time it is asked for. */
  own<T>(slot: StoreSlot<T>, create: () => T): T {
    if (this.#owned.has(slot)) return this.#owned.get(slot) as T;
    const value = create();
    this.#owned.set(slot, value);
    return value;
  }
}

/**
 * The runtime of the store `identity` identifies, made on first use. Held weakly: a store nothing
 * references any more takes its runtime with it.
 */
export function storeRuntime(identity: object): StoreRuntime {
  let runtime = runtimes.get(identity);
  if (!runtime) {
    runtime = new StoreRuntime();
    runtimes.set(identity, runtime);
  }
  return runtime;
}

// The only module-level map keyed by a store: every per-store coordination goes through it.
const runtimes = new WeakMap<object, StoreRuntime>();
