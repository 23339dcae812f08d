/**
 * The background embedder of one store: it drains the store's queue in batches, retries a
 * failed batch with exponential backoff, and reports progress. One index per `withEmbeddings()`
 * call and store object, shared by the sessions of that call. A batch is claimed as a lease
 * (`EmbeddingStore.claim`), so several indexes over one store (other managers, other processes)
 * never embed an item twice, and the items of a worker that died come due when its lease ends.
 */
import { messageOf } from "../facade/status.js";
import type { ResolvedEmbedder } from "./embedder.js";
import type {
  EmbeddingStore,
  QueueItem,
} from "../contracts/embedding-store.js";
import type { EmbeddingStatusEvent } from "./types.js";
import { normalized } from "../encoding/vectors.js";

/** First retry delay after a failed batch; doubled per attempt up to `MAX_BACKOFF_MS`. */
export const BASE_BACKOFF_MS = 500;
/** The longest wait between retries. */
export const MAX_BACKOFF_MS = 60_000;
/** Characters of a text sent to the embedder: the rest is past any model's context anyway. */
export const MAX_EMBEDDED_CHARS = 8_000;
/** How often `flush()` looks again while another worker holds leased items. */
export const FLUSH_POLL_MS = 100;

/** Drains one store's embedding queue in the background; see the module comment. */
export class EmbeddingIndex {
  readonly #listeners = new Set<(event: EmbeddingStatusEvent) => void>();
  #prepared: Promise<void> | null = null;
  #running: Promise<void> | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastError: unknown = null;
  /** Failed batches so far: `flush()` counts its rounds that failed. */
  #failures = 0;
  #stopped = false;

  constructor(
    readonly store: EmbeddingStore,
    readonly embedder: ResolvedEmbedder,
  ) {}

  /** The model name vectors are stored and searched under. */
  get model(): string {
    return this.embedder.model;
  }

  /** Creates the tables once and queues what lacks a vector of this model (a model change re-embeds). */
  prepare(): Promise<void> {
    this.#prepared ??= this.store
      .prepare(this.model)
      .catch((error: unknown) => {
        this.#prepared = null;
        throw error;
      });
    return this.#prepared;
  }

  /** Whether `stop()` was called (the store's embeddings were removed). */
  get stopped(): boolean {
    return this.#stopped;
  }

  /**
   * Stops the worker for good: no new batch is claimed, and a batch in flight stores nothing
   * (its tables may be gone). Does not wait for the batch.
   */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Starts a drain soon, unless one runs; never waits for it and never throws. */
  kick(): void {
    if (this.#stopped || this.#running || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#start().catch(() => undefined);
    }, 0);
  }

  /**
   * Embeds until the queue is empty, retrying failures with backoff. Rejects with the embedder's
   * error once `maxAttempts` rounds of this call failed (the items stay queued). Items another
   * worker holds (another manager, another process) are waited for until it completes them or
   * its lease ends, after which this index embeds them itself; its own leases are always
   * settled when its drain ends, so a single process never waits out a lease.
   */
  async flush(maxAttempts = 5): Promise<void> {
    if (this.#stopped) return;
    await this.prepare();
    // Let change listeners of writes just made (the in-memory store) enqueue first.
    await new Promise((resolve) => setTimeout(resolve, 0));
    // A round counts as failed when a batch failed since the last one (a failure just before
    // this call counts once); waiting for another worker's lease is not a failure.
    let counted = this.#failures - (this.#lastError === null ? 0 : 1);
    for (let failedRounds = 0; !this.#stopped;) {
      if (this.#running) await this.#running.catch(() => undefined);
      clearTimeout(this.#timer);
      this.#timer = undefined;
      await this.#start();
      if ((await this.store.pending()) === 0) return;
      if (this.#failures > counted) {
        counted = this.#failures;
        if (++failedRounds >= maxAttempts) {
          // What the last batch threw, passed on as it is.
          const failure: unknown =
            this.#lastError ?? new Error("[arbor] Embedding did not finish");
          throw failure;
        }
      }
      // Waits for a backoff or another worker's lease, looking again often: that worker may
      // finish long before its lease ends.
      const due = await this.store.nextDue();
      const wait = due === null ? 0 : due - Date.now();
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(Math.max(wait, 1), FLUSH_POLL_MS)),
      );
    }
  }

  /** Hears progress events; returns the function that stops it. */
  subscribe(listener: (event: EmbeddingStatusEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Embeds a search query with the same model (not queued, not stored). */
  async embedQuery(text: string): Promise<Float32Array> {
    const [vector] = await this.embedder.embed([text]);
    return normalized(vector!);
  }

  #start(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#running ??= this.#drain().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #drain(): Promise<void> {
    await this.prepare();
    while (!this.#stopped) {
      const now = Date.now();
      const items = await this.store.claim(
        this.embedder.batchSize,
        now,
        now + this.embedder.leaseMs,
      );
      if (items.length === 0) break;
      if (!(await this.#settled(items))) break;
    }
    if (this.#stopped) return;
    const next = await this.store.nextDue();
    if (next === null) {
      this.#emit({ phase: "idle", embedded: 0 });
      return;
    }
    // Items wait for their backoff or another worker's lease: come back when the first is due.
    clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#start().catch(() => undefined);
      },
      Math.min(Math.max(0, next - Date.now()), MAX_BACKOFF_MS),
    );
    unref(this.#timer);
  }

  /**
   * One claimed batch, whose lease is always settled: when reading texts or storing vectors
   * throws, the items are released with a backoff rather than held until the lease ends.
   */
  async #settled(items: QueueItem[]): Promise<boolean> {
    try {
      return await this.#embedBatch(items);
    } catch (error) {
      if (this.#stopped) return false;
      this.#failures++;
      this.#lastError = error;
      const attempts = Math.max(0, ...items.map((item) => item.attempts));
      await this.store
        .fail(items, Date.now() + backoff(attempts))
        .catch(() => undefined);
      throw error;
    }
  }

  /**
   * One batch: texts, vectors, one write. `false` when it failed (the items wait for backoff).
   * A batch whose items already failed twice is retried one item at a time, so one text the
   * model always rejects (too long, say) holds back only itself.
   */
  async #embedBatch(items: QueueItem[]): Promise<boolean> {
    const texts = await this.store.texts(items);
    const live: Array<{ item: QueueItem; text: string }> = [];
    const gone: QueueItem[] = [];
    items.forEach((item, i) => {
      const text = texts[i];
      if (text === null || text === undefined) gone.push(item);
      else live.push({ item, text: text.slice(0, MAX_EMBEDDED_CHARS) });
    });
    const attempts = Math.max(0, ...live.map(({ item }) => item.attempts));
    const groups =
      attempts >= 2 ? live.map((entry) => [entry]) : live.length ? [live] : [];
    const done: Array<{ item: QueueItem; vector: Float32Array }> = [];
    const failed: QueueItem[] = [];
    let error: unknown = null;
    for (const group of groups) {
      try {
        const vectors = await this.embedder.embed(group.map((e) => e.text));
        group.forEach(({ item }, i) =>
          done.push({ item, vector: normalized(vectors[i]!) }),
        );
      } catch (cause) {
        error = cause;
        failed.push(...group.map((e) => e.item));
      }
    }
    // Stopped (embeddings removed) while the embedder ran: the tables may be gone.
    if (this.#stopped) return false;
    if (done.length > 0 || gone.length > 0)
      await this.store.complete(done, gone, this.model);
    if (failed.length > 0) {
      this.#failures++;
      this.#lastError = error;
      await this.store.fail(failed, Date.now() + backoff(attempts));
      this.#emit({
        phase: "failed",
        embedded: done.length,
        error: messageOf(error),
      });
      return done.length > 0;
    }
    this.#lastError = null;
    this.#emit({ phase: "embedded", embedded: done.length });
    return true;
  }

  #emit(
    event: Pick<EmbeddingStatusEvent, "phase" | "embedded" | "error">,
  ): void {
    if (this.#listeners.size === 0) return;
    void this.store.pending().then((pending) => {
      const full: EmbeddingStatusEvent = {
        type: "cf_agent_session_embeddings",
        ...event,
        pending,
        model: this.model,
      };
      for (const listener of this.#listeners) {
        try {
          listener(full);
        } catch {
          // A listener's failure never stops embedding.
        }
      }
    });
  }
}

/** The wait before retrying items that failed `attempts` times before. */
function backoff(attempts: number): number {
  return Math.min(BASE_BACKOFF_MS * 2 ** attempts, MAX_BACKOFF_MS);
}

function unref(timer: unknown): void {
  (timer as { unref?: () => void }).unref?.();
}
