/**
 * The SessionManager's embeddings and search (docs/search.md). The ranking code for modes other
 * than plain text loads on first use, so a Worker bundle keeps it in a separate chunk.
 */
import { EmbeddingHandle } from "../embeddings/embedding-handle.js";
import type { ManagedSession } from "./session-cache.js";
import {
  isPlainSearch,
  type Embedder,
  type EmbeddingOptions,
  type SearchHit,
} from "../embeddings/types.js";
import type { ManagerSearchOptions } from "./manager-options.js";
import { searchSessions } from "./manager-search.js";
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
    const { storeEmbeddings } = await import("./manager-recall-search.js");
    await (await handle.index(storeEmbeddings(this.host))).flush();
  }

  /** `SessionManager.removeEmbeddings()`: embeddings off for the whole store. */
  async removeEmbeddings(): Promise<{ vectors: number; queued: number }> {
    const { storeEmbeddings } = await import("./manager-recall-search.js");
    const embeddings = storeEmbeddings(this.host, "removeEmbeddings()");
    const handle = this.settings.embeddings;
    this.settings.embeddings = null;
    if (handle)
      for (const { seam } of this.openSessions()) seam.detachEmbeddings(handle);
    const { removeStoreEmbeddings } =
      await import("../embeddings/embedding-runtime.js");
    return removeStoreEmbeddings(embeddings);
  }

  /** `SessionManager.search()`: the ranked search, then hits placed in their sessions. */
  async search(
    query: string,
    options: ManagerSearchOptions = {},
  ): Promise<SearchHit[]> {
    const [{ searchWithQueryTime }, { checkHitContext }, { placeManagerHits }] =
      await Promise.all([
        import("../embeddings/query-time-search.js"),
        import("../embeddings/hit-neighbours.js"),
        import("./manager-search-hits.js"),
      ]);
    const context = checkHitContext(options.context);
    const {
      now: _now,
      timeZone: _timeZone,
      context: _context,
      since: _since,
      until: _until,
      ...ranking
    } = options;
    const hits = await searchWithQueryTime(query, options, (text, window) =>
      this.rankedSearch(text, { ...ranking, ...window }),
    );
    return placeManagerHits(
      this.host.registry,
      async (sessionId) =>
        (await this.host.managed(sessionId).seam.ready()).tree,
      hits,
      context,
    );
  }

  /** The search itself: plain full text, or the ranking of manager-recall-search.ts. */
  private async rankedSearch(
    query: string,
    options: ManagerSearchOptions,
  ): Promise<SearchHit[]> {
    const handle = this.settings.embeddings;
    if (!handle && isPlainSearch(options))
      return searchSessions(this.host.registry, query, options);
    const { searchManagerRecall } = await import("./manager-recall-search.js");
    return searchManagerRecall(this.host, handle, query, options);
  }
}
