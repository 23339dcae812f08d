/**
 * The SessionManager's embeddings and search (docs/search.md). The search pipeline and the
 * embedding worker load on first use, so a Worker bundle keeps them in separate chunks.
 */
import { EmbeddingHandle } from "../embeddings/embedding-handle.js";
import type { ManagedSession } from "./session-cache.js";
import type {
  Embedder,
  EmbeddingOptions,
  SearchHit,
} from "../embeddings/types.js";
import type { ManagerSearchOptions } from "./manager-options.js";
import type { ManagerHost } from "./manager-backend.js";
import type { SessionSettings } from "./session-settings.js";

/** Embeddings and search of a SessionManager, one part of its facade; see the module comment. */
export class ManagerRecall {
  /**
   * `settings`: the builder settings applied to every session the manager opens;
   * `openSessions`: the sessions it holds open now.
   */
  constructor(
    private readonly host: ManagerHost,
    private readonly settings: SessionSettings,
    private readonly openSessions: () => Iterable<ManagedSession>,
  ) {}

  /** `SessionManager.withEmbeddings()`: recall for every session, open ones included. */
  withEmbeddings(embedder: Embedder, options: EmbeddingOptions = {}): void {
    const handle = new EmbeddingHandle(embedder, options);
    this.settings.embeddings = handle;
    for (const { seam } of this.openSessions()) seam.attachEmbeddings(handle);
  }

  /** Waits until every queued message of the store is embedded (tests, scripts). */
  async flushEmbeddings(): Promise<void> {
    const handle = this.settings.embeddings;
    if (!handle) return;
    const { storeEmbeddings } = await import("./manager-search-space.js");
    await (await handle.index(storeEmbeddings(this.host))).flush();
  }

  /** `SessionManager.removeEmbeddings()`: embeddings off for the whole store. */
  async removeEmbeddings(): Promise<{ vectors: number; queued: number }> {
    const { storeEmbeddings } = await import("./manager-search-space.js");
    const embeddings = storeEmbeddings(this.host, "removeEmbeddings()");
    const handle = this.settings.embeddings;
    this.settings.embeddings = null;
    if (handle)
      for (const { seam } of this.openSessions()) seam.detachEmbeddings(handle);
    const { removeStoreEmbeddings } =
      await import("../embeddings/embedding-runtime.js");
    return removeStoreEmbeddings(embeddings);
  }

  /** `SessionManager.search()`: the search pipeline over the registry's sessions. */
  async search(
    query: string,
    options: ManagerSearchOptions = {},
  ): Promise<SearchHit[]> {
    const { searchManagerHits } = await import("./manager-search-space.js");
    return searchManagerHits(this.host, this.settings, query, options);
  }
}
