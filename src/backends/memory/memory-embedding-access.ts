/**
 * The `BackendEmbeddings` of the in-memory store, shared by its providers and its backend: a small
 * stand-in whose code (memory-backend-embeddings.ts) loads on first call, so a session that never
 * embeds does not carry it.
 */
import { lazyEmbeddings } from "../../session/state/lazy-embeddings.js";
import type { BackendEmbeddings } from "../../session/contracts/embedding-store.js";
import type { MemoryStore } from "./memory-store.js";

/** The embeddings of the store. */
export function memoryEmbeddings(store: MemoryStore): BackendEmbeddings {
  return lazyEmbeddings(store, async () =>
    (await import("./memory-backend-embeddings.js")).createMemoryEmbeddings(
      store,
    ),
  );
}
