import type { BackendEmbeddings } from "../contracts/embedding-store.js";

/**
 * A store's `BackendEmbeddings` whose code loads on first call: providers hand this out from
 * `embeddings()`, so a session that never embeds (and a Worker bundle) does not carry the
 * embedding code. One object per `identity`, so callers that key on it agree.
 */
export function lazyEmbeddings(
  identity: object,
  load: () => Promise<BackendEmbeddings>,
): BackendEmbeddings {
  let embeddings = byIdentity.get(identity);
  if (!embeddings) {
    let loaded: Promise<BackendEmbeddings> | null = null;
    const real = () => (loaded ??= load());
    embeddings = {
      open: async () => (await real()).open(),
      exists: async () => (await real()).exists(),
      count: async (sessionId, itemIds) =>
        (await real()).count(sessionId, itemIds),
      erase: async (sessionId, itemIds) =>
        (await real()).erase(sessionId, itemIds),
      remove: async () => (await real()).remove(),
    };
    byIdentity.set(identity, embeddings);
  }
  return embeddings;
}

// --- Internal helpers ---

const byIdentity = new WeakMap<object, BackendEmbeddings>();
