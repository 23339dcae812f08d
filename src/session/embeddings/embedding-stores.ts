/**
 * The embedding store of a built-in backend, one per store object, loaded with a dynamic
 * `import()` so sessions that never embed (and Worker bundles) do not carry the code.
 */
import { isSqlProvider } from "../contracts/sql-provider.js";
import { ArborError } from "../errors/index.js";
import { isPostgresClient } from "../providers/postgres/postgres-client.js";
import { MemoryStore } from "../providers/memory/memory-store.js";
import type { EmbeddingStore } from "../contracts/embedding-store.js";

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

const stores = new WeakMap<object, Promise<EmbeddingStore>>();

async function open(target: object): Promise<EmbeddingStore> {
  if (target instanceof MemoryStore) {
    const { MemoryEmbeddingStore } =
      await import("../providers/memory/memory-embeddings.js");
    return new MemoryEmbeddingStore(target);
  }
  if (isSqlProvider(target)) {
    const { SqlEmbeddingStore } =
      await import("../providers/sql/sql-embeddings.js");
    return new SqlEmbeddingStore(target);
  }
  if (isPostgresClient(target)) {
    const { PostgresEmbeddingStore } =
      await import("../providers/postgres/postgres-embeddings.js");
    return new PostgresEmbeddingStore(target);
  }
  throw new ArborError(
    "NOT_SUPPORTED",
    "[arbor] withEmbeddings() needs a built-in backend (in memory, a sql store or PostgreSQL)",
  );
}
