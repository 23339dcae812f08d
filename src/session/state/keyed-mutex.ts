/**
 * Serializes async work per key: a task starts when the previous task of its key has settled.
 * Each instance is its own set of locks; the append locks of a store are the one instance its
 * `StoreRuntime` holds (store-runtime.ts), so concurrent appends without a parent form a chain
 * rather than an accidental fork (docs/behavior/messages-and-tree.md).
 */
export class KeyedMutex {
  readonly #queues = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const queues = this.#queues;
    const previous = queues.get(key);
    // A key with nothing queued starts the task at once, not a turn of the microtask queue later:
    // an append awaits this lock every time, and each turn is a share of its cost.
    const result = previous ? previous.then(task, task) : start(task);
    // Drops the entry once the queue drains, so idle sessions cost nothing.
    const release = (): void => {
      if (queues.get(key) === tail) queues.delete(key);
    };
    const tail: Promise<void> = result.then(release, release);
    queues.set(key, tail);
    return result;
  }
}

/** `task()`, with a synchronous throw turned into a rejection as `then` would. */
function start<T>(task: () => Promise<T>): Promise<T> {
  try {
    return task();
  } catch (error) {
    return Promise.reject(error);
  }
}
