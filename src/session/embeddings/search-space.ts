/**
 * The search pipeline's space (search-pipeline.ts): what differs between searching one session
 * and the sessions of a registry, declared by each facade.
 */
import type {
  BackendEmbeddings,
  NearestQuery,
} from "../contracts/embedding-store.js";
import type { SessionProvider } from "../contracts/provider.js";
import type {
  SearchResult,
  StoredCompaction,
  TextSearchOptions,
} from "../contracts/types.js";
import type { TextSearchInput } from "../text/search-options.js";
import type { SessionTree } from "../state/session-tree.js";
import type { EmbeddingHandle } from "./embedding-handle.js";
import type { RecallItem } from "./recall.js";
import type { ReadOpenings } from "./session-evidence.js";
import type { SearchScope } from "./types.js";

/**
 * Where a search looks: one session (`session.search()`, session-search.ts) or the sessions of
 * a registry under `sessionIds` and `ownerId` (`manager.search()`, manager-search-space.ts).
 */
export interface SearchSpace {
  /** The embeddings in play, `null` for none. With them every search ranks (default `"hybrid"`). */
  readonly embeddings: EmbeddingHandle | null;
  /**
   * True across sessions: results carry `sessionId`, placed hits their session's name, and
   * `scope`/`leafId` are not read. False for one session, whose branches can narrow a search.
   */
  readonly acrossSessions: boolean;
  /**
   * The full-text search of the space's messages, best first: a plain search's answer, and the
   * messages of the text ranking (then with the rank window as `limit`). Checks its options
   * and answers `[]` for a query without terms, as the backend's search does.
   */
  searchText(
    query: string,
    options: TextSearchInput & { limit: number },
  ): Promise<SearchResult[]>;
  /**
   * Which of the messages open their sessions (have no parent), read together: what a ranked
   * search across sessions reads for its sessions' evidence (session-evidence.ts). Absent for one
   * session, and for a registry without `openings()`: the search then keeps its ranking's order.
   */
  openings?: ReadOpenings;
  /** The store the space's vectors live in; `NOT_SUPPORTED` without one. */
  embeddingStore(): Promise<BackendEmbeddings>;
  /** What one ranked search covers, with `scope` (`"session"` across sessions) and `leafId`. */
  rankingScope(scope: SearchScope, leafId?: string): Promise<RankingScope>;
  /**
   * The sessions of `ids` that are still there, by id (a session deleted since its hit was
   * found is left out): where hits are resolved and placed.
   */
  sessions(ids: readonly string[]): Promise<Map<string, SpaceSession>>;
}

/** What one ranked search covers, read once before it ranks. */
export interface RankingScope {
  /** The one session's id, carried by every candidate; absent across sessions (the hit's). */
  sessionId?: string;
  /** The path a branch search keeps text hits on; `null` for every branch. */
  path: ReadonlySet<string> | null;
  /** The active path, when already read (a branch search of the active branch). */
  active?: ReadonlySet<string>;
  /** The overlays a summary candidate may resolve to, when already read (one session). */
  overlays?: ReadonlyMap<string, StoredCompaction>;
  /** Overlays whose summary matches, best first. */
  summaries(
    query: string,
    options: TextSearchOptions & { limit: number },
  ): Promise<RecallItem[]>;
  /** The semantic ranking's filter: the sessions, and a branch's items. */
  semantic: Omit<NearestQuery, "model" | "limit">;
}

/** A session of the space: its registry name (across sessions), and its provider and tree. */
export interface SpaceSession {
  name?: string;
  ready(): Promise<{ provider: SessionProvider; tree: SessionTree }>;
}
