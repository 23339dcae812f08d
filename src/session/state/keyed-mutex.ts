/**
 * Serializes async work per (store, session id) within this process, so concurrent appends
 * without a parent form a chain rather than an accidental fork (docs/behavior/messages-and-tree.md). Sessions over the
 * same store share the lock because the store object, not the Session, keys it.
 */
const queues = new WeakMap<object, Map<string, Promise<unknown>>>();

export function runExclusive<T>(
  store: object,
  key: string,
  task: () => Promise<T>,
): Promise<T> {
  let byKey = queues.get(store);
  if (!byKey) {
    byKey = new Map();
    queues.set(store, byKey);
  }
  const queue = byKey;
  const previous = queue.get(key);
  // A key with nothing queued starts the task at once, not a turn of the microtask queue later:
  // an append awaits this lock every time, and each turn is a share of its cost.
  const result = previous ? previous.then(task, task) : start(task);
  // Drops the entry once the queue drains, so idle sessions cost nothing.
  const release = (): void => {
    if (queue.get(key) === tail) queue.delete(key);
  };
  const tail: Promise<void> = result.then(release, release);
  queue.set(key, tail);
  return result;
}

/** `task()`, with a synchronous throw turned into a rejection as `then` would. */
function start<T>(task: () => Promise<T>): Promise<T> {
  try {
    return task();
  } catch (error) {
    return Promise.reject(error);
  }
}
