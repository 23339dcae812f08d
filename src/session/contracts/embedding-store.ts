/**
 * The contract between the embedding worker and a backend's vector tables (one implementation
 * per built-in backend: backends/{memory,sql,postgres}/*-embeddings.ts).
 */

/** What is embedded: a stored message, or an overlay by its summary. */
export type EmbeddedKind = "message" | "summary";

/** One queued item. `gen` changes when the item is written again, so a late vector is dropped. */
export interface QueueItem {
  sessionId: string;
  kind: EmbeddedKind;
  itemId: string;
  gen: number;
  attempts: number;
}

/** One nearest neighbour: the item and its cosine similarity to the query. */
export interface VectorHit {
  sessionId: string;
  kind: EmbeddedKind;
  itemId: string;
  score: number;
}

/** Which vectors a nearest-neighbour search ranks. */
export interface NearestQuery {
  /** Only vectors stored under this model name. */
  model: string;
  /** These sessions, or every session (`null`). */
  sessionIds: readonly string[] | null;
  /** Only these items of the session, when given (a branch's path). */
  itemIds?: readonly string[];
  limit: number;
}

/** A backend's vector tables and embedding queue. Every method may be called concurrently. */
export interface EmbeddingStore {
  /** Which ranking the store uses, for docs and tests: `"sqlite-vec"`, `"pgvector"` or `"exact"`. */
  readonly engine: string;
  /**
   * Creates the tables and the write hooks (lazily, on first use), and queues every message and
   * overlay that has no vector under `model` (new ones, and those of another model).
   */
  prepare(model: string): Promise<void>;
  /**
   * Leases up to `limit` queued items due at `now` (ms), oldest first: in the same atomic write,
   * their due time moves to `leaseUntil`, so another worker (another process, another manager)
   * skips them until this one completes or fails them, or the lease ends (a crashed worker).
   */
  claim(limit: number, now: number, leaseUntil: number): Promise<QueueItem[]>;
  /** The text to embed per item; `null` when the item is gone or has no text. */
  texts(items: readonly QueueItem[]): Promise<Array<string | null>>;
  /**
   * Stores the vectors of items whose queue row still has the claimed `gen`, and removes those
   * queue rows and those of `gone` items, in one write.
   */
  complete(
    done: ReadonlyArray<{ item: QueueItem; vector: Float32Array }>,
    gone: readonly QueueItem[],
    model: string,
  ): Promise<void>;
  /** Records a failed attempt: the items are due again at `nextAt` (ms). */
  fail(items: readonly QueueItem[], nextAt: number): Promise<void>;
  /** Queued items (of one session, or all). */
  pending(sessionId?: string): Promise<number>;
  /** The earliest time (ms) a queued item is due (a leased one: its lease's end), or `null` with an empty queue. */
  nextDue(): Promise<number | null>;
  /** The most similar vectors, best first. */
  nearest(query: Float32Array, options: NearestQuery): Promise<VectorHit[]>;
  /** Removes the vectors and queue rows of these items (every item of the session for `null`). */
  erase(sessionId: string, itemIds: readonly string[] | null): Promise<void>;
  /** Vectors, queued rows and the model names of the vectors of a session (for tests and checks). */
  count(sessionId: string): Promise<EmbeddingCounts>;
}

/** What `EmbeddingStore.count()` reports. */
export interface EmbeddingCounts {
  vectors: number;
  queued: number;
  /** Distinct model names of the stored vectors, sorted. */
  models: string[];
}

/** A backend's side of embeddings, beyond the `EmbeddingStore` the worker drives. */
export interface BackendEmbeddings {
  /** The store's embedding store; the caller opens it once per `identity` and keeps it. */
  open(): Promise<EmbeddingStore>;
  /** Whether the store may hold vectors or queued embeddings (their tables exist, or an index was opened). */
  exists(): Promise<boolean>;
  /** How many vectors and queued items of these items (every item of the session for `null`) there are. */
  count(
    sessionId: string,
    itemIds: readonly string[] | null,
  ): Promise<{ vectors: number; queued: number }>;
  /** Removes the vectors and queued items of these items (every item of the session for `null`). */
  erase(sessionId: string, itemIds: readonly string[] | null): Promise<void>;
  /** Drops the tables, triggers and queue: embeddings are off until opened again. */
  remove(): Promise<{ vectors: number; queued: number }>;
}
