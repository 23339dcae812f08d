/**
 * The public shapes of embeddings and recall (docs/search.md): what `withEmbeddings()` takes,
 * the search options and the explained results.
 */
import type {
  MatchMode,
  PrefixMode,
  SearchResult,
} from "../contracts/types.js";

/**
 * The part of an AI SDK `EmbeddingModel` (specification v2 or v3) Arbor calls: `doEmbed`, so
 * any provider works (`@ai-sdk/openai-compatible` for Ollama, llama.cpp, vLLM, hosted APIs)
 * without Arbor importing `ai`.
 */
export interface EmbeddingModelLike {
  readonly specificationVersion: string;
  readonly modelId: string;
  readonly provider?: string;
  readonly maxEmbeddingsPerCall?:
    PromiseLike<number | undefined> | number | undefined;
  doEmbed(options: {
    values: string[];
    providerOptions?: Record<string, Record<string, unknown>>;
  }): PromiseLike<{ embeddings: number[][] }>;
}

/** A function that embeds texts: one vector per text, in order. */
export type EmbedFunction = (texts: string[]) => Promise<number[][]>;

/** What `withEmbeddings()` takes: an AI SDK embedding model or a function. */
export type Embedder = EmbeddingModelLike | EmbedFunction;

/** Options of `withEmbeddings()`. */
export interface EmbeddingOptions {
  /** Vector length: asked of the model (when it takes `dimensions`) and checked on every vector. */
  dimensions?: number;
  /** Texts per embedding call; default 64 (and at most the model's `maxEmbeddingsPerCall`). */
  batchSize?: number;
  /**
   * The name stored with every vector. A different name marks stored vectors stale: they are
   * re-embedded in the background and ignored by search until then. Default: the model's
   * `modelId`, or `"custom"` for a function.
   */
  model?: string;
  /**
   * Milliseconds a claimed batch stays reserved for this worker; default 60,000. Tests shorten
   * it to see a crashed worker's items taken over without waiting a minute.
   * @internal
   */
  leaseMs?: number;
}

/** Progress of the background embedding, sent to `onStatus` listeners. */
export interface EmbeddingStatusEvent {
  type: "cf_agent_session_embeddings";
  /** `embedded`: a batch was stored; `failed`: a batch failed and will be retried; `idle`: the queue is empty. */
  phase: "embedded" | "failed" | "idle";
  /** Items still queued in the store. */
  pending: number;
  /** Items stored by this batch (for `failed`, those of it that still succeeded; 0 for `idle`). */
  embedded: number;
  /** The model name vectors are stored under. */
  model: string;
  /** The failure of a `failed` batch. */
  error?: string;
}

/** How a search matches: words, meaning, or both fused (docs/search.md). */
export type SearchMode = "text" | "semantic" | "hybrid";

/** Where a session search looks: the whole tree, or one branch. */
export type SearchScope = "branch" | "session";

/** Options of `session.search()`. */
export interface SessionSearchOptions {
  /** Most results; default 20. Values that are not positive integers mean 20. */
  limit?: number;
  /** Default `"text"` without embeddings, `"hybrid"` with them. */
  mode?: SearchMode;
  /** Default `"session"`: every branch. `"branch"`: the active path, or the path to `leafId`. */
  scope?: SearchScope;
  /** The leaf whose path `scope: "branch"` searches; default the active branch. */
  leafId?: string;
  /** `"any"` (default): ranked any-term retrieval, all-term matches first; `"all"`: every term must match. */
  match?: MatchMode;
  /**
   * Which terms match as the start of a word: `true` or `"last"` the last term ("launch budg"
   * finds "launch budget"), `"all"` every term; default whole words (docs/search.md#prefix-search).
   */
  prefix?: boolean | PrefixMode;
  /** Only messages created at or after this instant (a `Date` or ISO-8601 string). */
  since?: string | Date;
  /** Only messages created before this instant (a `Date` or ISO-8601 string). */
  until?: string | Date;
  /**
   * The moment relative times in the query count from ("yesterday", "last week"); default the
   * time of the search (docs/search.md#time-in-a-query).
   */
  now?: string | Date;
  /** The IANA time zone the query's dates are meant in; default `"UTC"`. */
  timeZone?: string;
  /**
   * Neighbouring turns to return with each hit: up to this many before and after it on its
   * branch, 0 to 10; default 0 (docs/search.md#context-around-a-hit).
   */
  context?: number;
}

/** A turn next to a hit (`context`), compact: its text cut to a budget. */
export interface ContextTurn {
  id: string;
  role: string;
  /** ISO-8601 UTC, when the stored message carries its time. */
  createdAt?: string;
  /** The searchable text, cut to 400 characters (`…` marks a cut). */
  text: string;
}

/** The turns around a hit on its branch, nearest last in `before` and first in `after`. */
export interface HitContext {
  before: ContextTurn[];
  after: ContextTurn[];
}

/** What every search result may carry besides its text: where and when it was said. */
export interface SearchHitPlace {
  /** The session's name (results of `manager.search()`). */
  sessionName?: string;
  /** With `context`: the neighbouring turns. */
  context?: HitContext;
  /** True when the hit lies in a time the query names (a query with a date in it). */
  inQueryTime?: boolean;
}

/**
 * A search result that explains itself. Results of a plain text search (no `mode`, no
 * embeddings) keep the old shape; every other search adds these fields.
 */
export interface RecallResult extends SearchResult, SearchHitPlace {
  /** `"message"` for a stored message, `"summary"` for an overlay found by its summary. */
  kind: "message" | "summary";
  /**
   * Higher is better. Text: 1/rank; semantic: cosine similarity; hybrid: the fused rank score,
   * the vectors weighed by how far they agree with the words (docs/search.md#how-hybrid-fuses).
   */
  score: number;
  /** Which rankings found it. */
  matched: { text: boolean; semantic: boolean };
  /** A short excerpt with the matched query terms wrapped in `«` and `»`. */
  snippet: string;
  /** Whether the message (or the overlay's last message) is on the active branch. */
  onActiveBranch: boolean;
}

/**
 * What `session.search()` and `manager.search()` return: a `SearchResult`, with the explaining
 * fields of `RecallResult` present whenever a mode, scope or embeddings are in play.
 */
export type SearchHit = SearchResult &
  SearchHitPlace &
  Partial<Omit<RecallResult, keyof SearchResult | keyof SearchHitPlace>>;

/** True for a search with none of the recall options: it runs as the plain full-text search. */
export function isPlainSearch(options: {
  mode?: unknown;
  scope?: unknown;
  leafId?: unknown;
}): boolean {
  return (
    options.mode === undefined &&
    options.scope === undefined &&
    options.leafId === undefined
  );
}
