/**
 * The background embedder of one store: it drains the store's queue in batches, retries a
 * failed batch with exponential backoff, and reports progress. One index per store object and
 * model, shared by every Session and SessionManager over that store, so a queue is drained once.
 */
import { messageOf } from "../status.js";
import type { ResolvedEmbedder } from "./embedder.js";
import type {
  EmbeddingStore,
  QueueItem,
} from "../contracts/embedding-store.js";
import type { EmbeddingStatusEvent } from "./types.js";
import { normalized } from "../core/vectors.js";

/** First retry delay after a failed batch; doubled per attempt up to `MAX_BACKOFF_MS`. */
export const BASE_BACKOFF_MS = 500;
/** The longest wait between retries. */
export const MAX_BACKOFF_MS = 60_000;
/** Characters of a text sent to the embedder: the rest is past any model's context anyway. */
export const MAX_EMBEDDED_CHARS = 8_000;

/** Drains one store's embedding queue in the background; see the module comment. */
export class EmbeddingIndex {
  readonly #listeners = new Set<(event: EmbeddingStatusEvent) => void>();
  #prepared: Promise<void> | null = null;
  #running: Promise<void> | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastError: unknown = null;

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
    this.#prepared ??= this.store.prepare(this.model).catch((error) => {
      this.#prepared = null;
      throw error;
    });
    return this.#prepared;
  }

  /** Starts a drain soon, unless one runs; never waits for it and never throws. */
  kick(): void {
    if (this.#running || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#start().catch(() => undefined);
    }, 0);
  }

  /**
   * Embeds until the queue is empty, retrying failures with backoff. Rejects with the embedder's
   * error once an item has failed `maxAttempts` times in this call (it stays queued).
   */
  async flush(maxAttempts = 5): Promise<void> {
    await this.prepare();
    // Let change listeners of writes just made (the in-memory store) enqueue first.
    await new Promise((resolve) => setTimeout(resolve, 0));
    for (let round = 0; ; round++) {
      if (this.#running) await this.#running.catch(() => undefined);
      clearTimeout(this.#timer);
      this.#timer = undefined;
      await this.#start();
      if ((await this.store.pending()) === 0) return;
      if (round + 1 >= maxAttempts)
        throw this.#lastError ?? new Error("[arbor] Embedding did not finish");
      const due = await this.store.nextDue();
      const wait = due === null ? 0 : Math.max(0, due - Date.now());
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(wait, MAX_BACKOFF_MS)),
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
    this.#running ??= this.#drain().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #drain(): Promise<void> {
    await this.prepare();
    for (;;) {
      const items = await this.store.claim(this.embedder.batchSize, Date.now());
      if (items.length === 0) break;
      if (!(await this.#embedBatch(items))) break;
    }
    const next = await this.store.nextDue();
    if (next === null) {
      this.#emit({ phase: "idle", embedded: 0 });
      return;
    }
    // Items wait for their backoff: come back when the first is due.
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
    if (done.length > 0 || gone.length > 0)
      await this.store.complete(done, gone, this.model);
    if (failed.length > 0) {
      this.#lastError = error;
      const delay = Math.min(BASE_BACKOFF_MS * 2 ** attempts, MAX_BACKOFF_MS);
      await this.store.fail(failed, Date.now() + delay);
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

function unref(timer: unknown): void {
  (timer as { unref?: () => void }).unref?.();
}
