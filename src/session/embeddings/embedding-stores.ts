/**
 * The embedding store of a built-in backend, one per store object, loaded with a dynamic
 * `import()` so sessions that never embed (and Worker bundles) do not carry the code.
 */
import { isSqlProvider } from "../contracts/sql-provider.js";
import { ArborError } from "../errors/index.js";
import { isPostgresClient } from "../../backends/postgres/postgres-client.js";
import { MemoryStore } from "../../backends/memory/memory-store.js";
import type { EmbeddingStore } from "../contracts/embedding-store.js";
import type { EmbeddingIndex } from "./embedding-index.js";

/**
 * The embedding store behind a session's `storeIdentity` (a `MemoryStore`, a `sql` store or a
 * PostgreSQL client); `NOT_SUPPORTED` for a custom provider.
 */
export function embeddingStoreFor(target: object): Promise<EmbeddingStore> {
  let store = stores.get(target);
  if (!store) {
    store = open(target);
    stores.set(target, store);
    store.catch(() => stores.delete(target));
  }
  return store;
}

/** The store's embedding store when embeddings were used on it in this process, else `undefined`. */
export function existingEmbeddingStore(
  target: object,
): Promise<EmbeddingStore> | undefined {
  return stores.get(target);
}

/** Notes an index over the store, so `removeStoreEmbeddings()` can stop it. */
export function trackIndex(target: object, index: EmbeddingIndex): void {
  let set = indexes.get(target);
  if (!set) {
    set = new Set();
    indexes.set(target, set);
  }
  set.add(index);
}

/**
 * Turns embeddings off on the store (`manager.removeEmbeddings()`): stops every index of this
 * process over it, forgets its embedding store (a later `withEmbeddings()` opens a new one,
 * which recreates the tables and queues every message), and drops the tables, triggers and
 * maps. Returns how many vectors and queued items went.
 */
export async function removeStoreEmbeddings(
  target: object,
): Promise<{ vectors: number; queued: number }> {
  for (const index of indexes.get(target) ?? []) index.stop();
  indexes.delete(target);
  const opened = stores.get(target);
  stores.delete(target);
  if (target instanceof MemoryStore) {
    const store = await opened?.catch(() => undefined);
    const { MemoryEmbeddingStore } =
      await import("../../backends/memory/memory-embeddings.js");
    return store instanceof MemoryEmbeddingStore
      ? store.remove()
      : { vectors: 0, queued: 0 };
  }
  if (isSqlProvider(target)) {
    const { removeSqlEmbeddings } =
      await import("../../backends/sql/sql-embedding-schema.js");
    return removeSqlEmbeddings(target);
  }
  if (isPostgresClient(target)) {
    const [{ removePostgresEmbeddings }, { postgresExecutor }] =
      await Promise.all([
        import("../../backends/postgres/postgres-embedding-schema.js"),
        import("../../backends/postgres/postgres-executor.js"),
      ]);
    return removePostgresEmbeddings(postgresExecutor(target));
  }
  throw new ArborError(
    "NOT_SUPPORTED",
    "[arbor] removeEmbeddings() needs a built-in backend (in memory, a sql store or PostgreSQL)",
  );
}

const stores = new WeakMap<object, Promise<EmbeddingStore>>();
const indexes = new WeakMap<object, Set<EmbeddingIndex>>();

async function open(target: object): Promise<EmbeddingStore> {
  if (target instanceof MemoryStore) {
    const { MemoryEmbeddingStore } =
      await import("../../backends/memory/memory-embeddings.js");
    return new MemoryEmbeddingStore(target);
  }
  if (isSqlProvider(target)) {
    const { SqlEmbeddingStore } =
      await import("../../backends/sql/sql-embeddings.js");
    return new SqlEmbeddingStore(target);
  }
  if (isPostgresClient(target)) {
    const { PostgresEmbeddingStore } =
      await import("../../backends/postgres/postgres-embeddings.js");
    return new PostgresEmbeddingStore(target);
  }
  throw new ArborError(
    "NOT_SUPPORTED",
    "[arbor] withEmbeddings() needs a built-in backend (in memory, a sql store or PostgreSQL)",
  );
}
