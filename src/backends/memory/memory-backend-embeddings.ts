/**
 * The in-memory store's `BackendEmbeddings`, loaded on first use through `memoryEmbeddings()`
 * (memory-embedding-access.ts): its vectors live in the maps of one `MemoryEmbeddingStore`, made
 * on first `open()`; before that there is nothing to count or erase.
 */
import type { BackendEmbeddings } from "../../session/contracts/embedding-store.js";
import { MemoryEmbeddingStore } from "./memory-embeddings.js";
import type { MemoryStore } from "./memory-store.js";

/** The embeddings of one store. */
export function createMemoryEmbeddings(store: MemoryStore): BackendEmbeddings {
  let opened: MemoryEmbeddingStore | null = null;
  return {
    open: async () => (opened ??= new MemoryEmbeddingStore(store)),
    exists: async () => opened !== null,
    count: async (sessionId, itemIds) =>
      opened?.countErasable(sessionId, itemIds) ?? { vectors: 0, queued: 0 },
    erase: async (sessionId, itemIds) => {
      await opened?.erase(sessionId, itemIds);
    },
    remove: async () => {
      const current = opened;
      opened = null;
      return current?.remove() ?? { vectors: 0, queued: 0 };
    },
  };
}
