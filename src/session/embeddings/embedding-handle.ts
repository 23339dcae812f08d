/**
 * What `withEmbeddings()` leaves on a Session or SessionManager: the checked embedder and,
 * from first use, the store's `EmbeddingIndex`. A manager hands one handle to all its sessions.
 */
import { resolveEmbedder, type ResolvedEmbedder } from "./embedder.js";
import type { EmbeddingIndex } from "./embedding-index.js";
import type { Embedder, EmbeddingOptions } from "./types.js";

/** The lazily opened index of one `withEmbeddings()` call; see the module comment. */
export class EmbeddingHandle {
  readonly embedder: ResolvedEmbedder;
  readonly #indexes = new WeakMap<object, Promise<EmbeddingIndex>>();

  constructor(embedder: Embedder, options: EmbeddingOptions = {}) {
    this.embedder = resolveEmbedder(embedder, options);
  }

  /** The index over the store (`storeIdentity`), created and prepared on first call. */
  index(target: object): Promise<EmbeddingIndex> {
    let index = this.#indexes.get(target);
    if (!index) {
      // The worker and the stores load on first use: sessions that never embed do not carry them.
      index = import("./embedding-runtime.js").then(
        async ({ EmbeddingIndex, embeddingStoreFor }) => {
          const store = await embeddingStoreFor(target);
          const created = new EmbeddingIndex(store, this.embedder);
          await created.prepare();
          created.kick();
          return created;
        },
      );
      this.#indexes.set(target, index);
      index.catch(() => this.#indexes.delete(target));
    }
    return index;
  }
}
