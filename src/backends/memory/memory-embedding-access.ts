/**
 * The in-memory store's `BackendEmbeddings`: its vectors live in the maps of one
 * `MemoryEmbeddingStore`, made on first `open()` (before that there is nothing to count or
 * erase). One per `MemoryStore`, shared by its providers and its backend.
 */
import type { BackendEmbeddings } from "../../session/contracts/embedding-store.js";
import type { MemoryEmbeddingStore } from "./memory-embeddings.js";
import type { MemoryStore } from "./memory-store.js";

/** The embeddings of `store`. */
export function memoryEmbeddings(store: MemoryStore): BackendEmbeddings {
  let access = accesses.get(store);
  if (!access) {
    access = createAccess(store);
    accesses.set(store, access);
  }
  return access;
}

// --- Internal helpers ---

const accesses = new WeakMap<MemoryStore, BackendEmbeddings>();

function createAccess(store: MemoryStore): BackendEmbeddings {
  let opened: Promise<MemoryEmbeddingStore> | null = null;
  return {
    open: () =>
      (opened ??= import("./memory-embeddings.js").then(
        ({ MemoryEmbeddingStore }) => new MemoryEmbeddingStore(store),
      )),
    exists: async () => opened !== null,
    count: async (sessionId, itemIds) =>
      opened
        ? (await opened).countErasable(sessionId, itemIds)
        : { vectors: 0, queued: 0 },
    erase: async (sessionId, itemIds) => {
      if (opened) await (await opened).erase(sessionId, itemIds);
    },
    remove: async () => {
      const current = opened;
      opened = null;
      return current ? (await current).remove() : { vectors: 0, queued: 0 };
    },
  };
}
