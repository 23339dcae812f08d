/**
 * The SessionManager's embeddings and search (docs/search.md). The ranking code for modes other
 * than plain text loads on first use, so a Worker bundle keeps it in a separate chunk.
 */
import { EmbeddingHandle } from "../embeddings/embedding-handle.js";
import { attachEmbeddings } from "../embeddings/session-embeddings.js";
import { Session } from "../session.js";
import {
  isPlainSearch,
  type Embedder,
  type EmbeddingOptions,
  type SearchHit,
} from "../embeddings/types.js";
import { ManagerRetention } from "./erase-methods.js";
import type { ManagerSearchOptions } from "./manager-options.js";
import { searchSessions } from "./manager-search.js";
import type { SessionSettings } from "./session-settings.js";

/** Embeddings and search of a SessionManager; see the module comment. */
export abstract class ManagerRecall extends ManagerRetention {
  /** The builder settings applied to every session the manager opens. */
  protected abstract readonly settings: SessionSettings;
  /** The sessions the manager holds open now. */
  protected abstract openSessions(): Iterable<Session>;

  /**
   * Semantic recall for every session this manager opens from now on (docs/search.md): messages
   * are queued in the same write and embedded in the background; `search()`, `session_search`
   * and `withSearchableHistory()` then default to `"hybrid"`. Sessions already open get it too.
   */
  withEmbeddings(embedder: Embedder, options: EmbeddingOptions = {}): this {
    const handle = new EmbeddingHandle(embedder, options);
    this.settings.embeddings = handle;
    for (const session of this.openSessions())
      attachEmbeddings(runtimeOf(session), handle);
    return this;
  }

  /** Waits until every queued message of the store is embedded (tests, scripts). */
  async flushEmbeddings(): Promise<void> {
    const handle = this.settings.embeddings;
    if (!handle) return;
    const { storeEmbeddings } = await import("./manager-recall-search.js");
    await (await handle.index(storeEmbeddings(this.host))).flush();
  }

  /**
   * Turns embeddings off for the whole store (docs/search.md): stops the background embedding
   * of this process over the store, drops the embedding queue, the vectors and the triggers that
   * queue writes (on PostgreSQL also the function `arbor_embedding_hook()`), and detaches
   * embeddings from this manager and the sessions it holds open. Writes queue nothing afterwards;
   * a later `withEmbeddings()` recreates everything and embeds every message again, and so does
   * the next write or search of another manager or session of this process that still has
   * `withEmbeddings()`.
   *
   * @returns How many vectors and queued items were removed.
   * @throws ArborError `NOT_SUPPORTED` when the store has no embeddings (a custom backend without `embeddings`).
   */
  async removeEmbeddings(): Promise<{ vectors: number; queued: number }> {
    const { storeEmbeddings } = await import("./manager-recall-search.js");
    const embeddings = storeEmbeddings(this.host, "removeEmbeddings()");
    const handle = this.settings.embeddings;
    this.settings.embeddings = null;
    for (const session of this.openSessions()) {
      const runtime = runtimeOf(session);
      if (handle && runtime.embeddings?.handle === handle)
        runtime.embeddings = null;
    }
    const { removeStoreEmbeddings } =
      await import("../embeddings/embedding-runtime.js");
    return removeStoreEmbeddings(embeddings);
  }

  /**
   * Searches the registered sessions: by words in `"text"` mode (the default without
   * embeddings), by meaning in `"semantic"`, both fused in `"hybrid"` (the default with them).
   * A time named in the query ranks the hits inside it first (`now`, `timeZone`); `since` and
   * `until` filter. Results carry `sessionId`, `sessionName` and `createdAt`, with `context`
   * their neighbouring turns; explained results (any mode given, or embeddings) also `score`,
   * `matched`, `snippet` and `onActiveBranch`.
   */
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
        (await runtimeOf(this.host.getSession(sessionId)).ready()).tree,
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

const runtimeOf = (session: Session) => Session.runtimeOf(session);
