/**
 * What `withEmbeddings()` leaves on a Session or SessionManager: the checked embedder and,
 * from first use, the store's `EmbeddingIndex`. A manager hands one handle to all its sessions.
 */
import type { BackendEmbeddings } from "../contracts/embedding-store.js";
import { resolveEmbedder, type ResolvedEmbedder } from "./embedder.js";
import type { EmbeddingIndex } from "./embedding-index.js";
import type { Embedder, EmbeddingOptions } from "./types.js";

/** The lazily opened index of one `withEmbeddings()` call; see the module comment. */
export class EmbeddingHandle {
  readonly embedder: ResolvedEmbedder;
  readonly #indexes = new WeakMap<BackendEmbeddings, IndexEntry>();

  constructor(embedder: Embedder, options: EmbeddingOptions = {}) {
    this.embedder = resolveEmbedder(embedder, options);
  }

  /**
   * The index over the store's embeddings, created and prepared on first call, and again after
   * the store's embeddings were removed (the old index is stopped).
   */
  index(target: BackendEmbeddings): Promise<EmbeddingIndex> {
    const cached = this.#indexes.get(target);
    if (cached && !cached.opened?.stopped) return cached.index;
    const entry: IndexEntry = {
      opened: null,
      // The worker and the stores load on first use: sessions that never embed do not carry them.
      index: import("./embedding-runtime.js").then(
        async ({ EmbeddingIndex, embeddingStoreFor, trackIndex }) => {
          const store = await embeddingStoreFor(target);
          const created = new EmbeddingIndex(store, this.embedder);
          trackIndex(target, created);
          await created.prepare();
          created.kick();
          entry.opened = created;
          return created;
        },
      ),
    };
    this.#indexes.set(target, entry);
    entry.index.catch(() => {
      if (this.#indexes.get(target) === entry) this.#indexes.delete(target);
    });
    return entry.index;
  }
}

interface IndexEntry {
  index: Promise<EmbeddingIndex>;
  /** The index once it is open. */
  opened: EmbeddingIndex | null;
}
