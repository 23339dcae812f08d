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
  const previous = byKey.get(key) ?? Promise.resolve();
  const result = previous.then(task, task);
  const tail = result.then(
    () => undefined,
    () => undefined,
  );
  byKey.set(key, tail);
  // Drop the entry once the queue drains, so idle sessions cost nothing.
  void tail.then(() => {
    if (byKey.get(key) === tail) byKey.delete(key);
  });
  return result;
}
