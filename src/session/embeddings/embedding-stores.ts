/**
 * The embedding store of each store's `BackendEmbeddings`, opened once per process, and the
 * indexes running over it (so `removeEmbeddings()` can stop them). Loaded with the embedding
 * worker on first use, so sessions that never embed (and Worker bundles) do not carry it.
 */
import type { BackendEmbeddings } from "../contracts/embedding-store.js";
import type { EmbeddingStore } from "../contracts/embedding-store.js";
import { ArborError } from "../errors/index.js";
import type { EmbeddingIndex } from "./embedding-index.js";

/**
 * The store's embeddings, or `NOT_SUPPORTED` when it has none (a custom provider or backend
 * without `embeddings`).
 */
export function requireEmbeddings(
  embeddings: BackendEmbeddings | null | undefined,
  caller: string,
): BackendEmbeddings {
  if (embeddings) return embeddings;
  throw new ArborError(
    "NOT_SUPPORTED",
    `[arbor] ${caller} needs a store with embeddings (in memory, a sql store, PostgreSQL, or a custom provider or backend that implements \`embeddings\`)`,
  );
}

/** The embedding store of `embeddings`, opened on first call and kept. */
export function embeddingStoreFor(
  embeddings: BackendEmbeddings,
): Promise<EmbeddingStore> {
  let store = stores.get(embeddings);
  if (!store) {
    store = embeddings.open();
    stores.set(embeddings, store);
    store.catch(() => stores.delete(embeddings));
  }
  return store;
}

/** Notes an index over the store, so `removeStoreEmbeddings()` can stop it. */
export function trackIndex(
  embeddings: BackendEmbeddings,
  index: EmbeddingIndex,
): void {
  let set = indexes.get(embeddings);
  if (!set) {
    set = new Set();
    indexes.set(embeddings, set);
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
  embeddings: BackendEmbeddings,
): Promise<{ vectors: number; queued: number }> {
  for (const index of indexes.get(embeddings) ?? []) index.stop();
  indexes.delete(embeddings);
  const opened = stores.get(embeddings);
  stores.delete(embeddings);
  await opened?.catch(() => undefined);
  return embeddings.remove();
}

// --- Internal helpers ---

const stores = new WeakMap<BackendEmbeddings, Promise<EmbeddingStore>>();
const indexes = new WeakMap<BackendEmbeddings, Set<EmbeddingIndex>>();
