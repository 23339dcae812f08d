import type { BackendEmbeddings } from "../contracts/embedding-store.js";
import { StoreSlot, storeRuntime } from "./store-runtime.js";

/**
 * A store's `BackendEmbeddings` whose code loads on first call: providers hand this out from
 * `embeddings()`, so a session that never embeds (and a Worker bundle) does not carry the
 * embedding code. One object per `identity`, so callers that key on it agree.
 */
export function lazyEmbeddings(
  identity: object,
  load: () => Promise<BackendEmbeddings>,
): BackendEmbeddings {
  return storeRuntime(identity).own(EMBEDDINGS, () => {
    let loaded: Promise<BackendEmbeddings> | null = null;
    const real = () => (loaded ??= load());
    return {
      open: async () => (await real()).open(),
      exists: async () => (await real()).exists(),
      count: async (sessionId, itemIds) =>
        (await real()).count(sessionId, itemIds),
      erase: async (sessionId, itemIds) =>
        (await real()).erase(sessionId, itemIds),
      remove: async () => (await real()).remove(),
    };
  });
}

// --- Internal helpers ---

/** The store's one embeddings object: the manager keys its open index on it (embedding-stores.ts). */
const EMBEDDINGS = new StoreSlot<BackendEmbeddings>("embeddings");
