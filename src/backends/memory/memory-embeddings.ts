/**
 * Vectors and the embedding queue of the in-memory store: maps beside the messages, fed by the
 * store's change feed (a write publishes after it is applied, in the same process), ranked by
 * an exact scan. Nothing is durable here, like the rest of the store.
 */
import type { ChangeEvent } from "../../session/contracts/changes.js";
import type {
  EmbeddedKind,
  EmbeddingCounts,
  EmbeddingStore,
  NearestQuery,
  QueueItem,
  VectorHit,
} from "../../session/contracts/embedding-store.js";
import { dot } from "../../session/encoding/vectors.js";
import { watchMemoryChanges } from "./memory-changes.js";
import type { MemoryStore } from "./memory-store.js";

interface Queued {
  gen: number;
  attempts: number;
  nextAt: number;
}

interface Stored {
  sessionId: string;
  kind: EmbeddedKind;
  itemId: string;
  model: string;
  vector: Float32Array;
}

/** The embedding maps of one `MemoryStore`. */
export class MemoryEmbeddingStore implements EmbeddingStore {
  readonly engine = "exact";
  readonly #queue = new Map<string, Queued>();
  readonly #vectors = new Map<string, Stored>();
  #gen = 0;
  readonly #unwatch: () => void;

  constructor(private readonly store: MemoryStore) {
    this.#unwatch = watchMemoryChanges(store, null, (event) =>
      this.#apply(event),
    );
  }

  /**
   * Turns embeddings off (`manager.removeEmbeddings()`): stops hearing writes and empties the
   * maps. Returns how many vectors and queued items there were.
   */
  remove(): { vectors: number; queued: number } {
    this.#unwatch();
    const removed = { vectors: this.#vectors.size, queued: this.#queue.size };
    this.#vectors.clear();
    this.#queue.clear();
    return removed;
  }

  async prepare(model: string): Promise<void> {
    for (const [sessionId, data] of this.store.sessions) {
      for (const row of data.ordered)
        this.#queueIfMissing(sessionId, "message", row.id, model);
      for (const overlay of data.compactions)
        this.#queueIfMissing(sessionId, "summary", overlay.id, model);
    }
  }

  async claim(
    limit: number,
    now: number,
    leaseUntil: number,
  ): Promise<QueueItem[]> {
    const items: QueueItem[] = [];
    for (const [key, queued] of this.#queue) {
      if (items.length >= limit) break;
      if (queued.nextAt > now) continue;
      // The lease: another index over this store skips the item until it is due again.
      queued.nextAt = leaseUntil;
      items.push({
        ...parseKey(key),
        gen: queued.gen,
        attempts: queued.attempts,
      });
    }
    return items;
  }

  async texts(items: readonly QueueItem[]): Promise<Array<string | null>> {
    return items.map((item) => {
      const data = this.store.peek(item.sessionId);
      if (item.kind === "summary") {
        const overlay = data?.compactions.find((o) => o.id === item.itemId);
        return overlay && overlay.summary.length > 0 ? overlay.summary : null;
      }
      const text = data?.rows.get(item.itemId)?.text ?? "";
      return text.length > 0 ? text : null;
    });
  }

  async complete(
    done: ReadonlyArray<{ item: QueueItem; vector: Float32Array }>,
    gone: readonly QueueItem[],
    model: string,
  ): Promise<void> {
    for (const { item, vector } of done) {
      const key = keyOf(item.sessionId, item.kind, item.itemId);
      if (this.#queue.get(key)?.gen !== item.gen) continue;
      this.#vectors.set(key, {
        sessionId: item.sessionId,
        kind: item.kind,
        itemId: item.itemId,
        model,
        vector,
      });
      this.#queue.delete(key);
    }
    for (const item of gone) {
      const key = keyOf(item.sessionId, item.kind, item.itemId);
      if (this.#queue.get(key)?.gen === item.gen) this.#queue.delete(key);
    }
  }

  async fail(items: readonly QueueItem[], nextAt: number): Promise<void> {
    for (const item of items) {
      const queued = this.#queue.get(
        keyOf(item.sessionId, item.kind, item.itemId),
      );
      if (queued?.gen !== item.gen) continue;
      queued.attempts++;
      queued.nextAt = nextAt;
    }
  }

  async pending(sessionId?: string): Promise<number> {
    if (sessionId === undefined) return this.#queue.size;
    let count = 0;
    for (const key of this.#queue.keys())
      if (parseKey(key).sessionId === sessionId) count++;
    return count;
  }

  async nextDue(): Promise<number | null> {
    let next: number | null = null;
    for (const queued of this.#queue.values())
      if (next === null || queued.nextAt < next) next = queued.nextAt;
    return next;
  }

  async nearest(
    query: Float32Array,
    options: NearestQuery,
  ): Promise<VectorHit[]> {
    const sessions =
      options.sessionIds === null ? null : new Set(options.sessionIds);
    const items =
      options.itemIds === undefined ? null : new Set(options.itemIds);
    const hits: VectorHit[] = [];
    for (const stored of this.#vectors.values()) {
      if (
        stored.model !== options.model ||
        stored.vector.length !== query.length
      )
        continue;
      if (sessions && !sessions.has(stored.sessionId)) continue;
      if (items && !items.has(stored.itemId)) continue;
      const { sessionId, kind, itemId } = stored;
      hits.push({ sessionId, kind, itemId, score: dot(query, stored.vector) });
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, options.limit);
  }

  /** How many vectors and queued items `erase()` with these arguments would remove. */
  countErasable(
    sessionId: string,
    itemIds: readonly string[] | null,
  ): { vectors: number; queued: number } {
    const ids = itemIds === null ? null : new Set(itemIds);
    const matches = (key: string) => {
      const where = parseKey(key);
      return (
        where.sessionId === sessionId && (ids === null || ids.has(where.itemId))
      );
    };
    return {
      vectors: [...this.#vectors.keys()].filter(matches).length,
      queued: [...this.#queue.keys()].filter(matches).length,
    };
  }

  async erase(
    sessionId: string,
    itemIds: readonly string[] | null,
  ): Promise<void> {
    const ids = itemIds === null ? null : new Set(itemIds);
    for (const map of [this.#queue, this.#vectors] as Array<
      Map<string, unknown>
    >) {
      for (const key of [...map.keys()]) {
        const where = parseKey(key);
        if (
          where.sessionId === sessionId &&
          (ids === null || ids.has(where.itemId))
        )
          map.delete(key);
      }
    }
  }

  async count(sessionId: string): Promise<EmbeddingCounts> {
    let vectors = 0;
    const models = new Set<string>();
    for (const [key, stored] of this.#vectors) {
      if (parseKey(key).sessionId !== sessionId) continue;
      vectors++;
      models.add(stored.model);
    }
    return {
      vectors,
      queued: await this.pending(sessionId),
      models: [...models].sort(),
    };
  }

  /** Keeps the maps in step with one committed write. */
  #apply(event: ChangeEvent): void {
    const { sessionId, ids } = event;
    const data = this.store.peek(sessionId);
    switch (event.type) {
      case "append":
      case "update":
      case "import":
        for (const id of ids) this.#enqueue(sessionId, "message", id);
        break;
      case "delete":
        void this.erase(sessionId, ids);
        break;
      case "clear":
        void this.erase(sessionId, null);
        break;
      case "compaction":
        for (const id of ids) {
          if (data?.compactions.some((o) => o.id === id))
            this.#enqueue(sessionId, "summary", id);
          else void this.erase(sessionId, [id]);
        }
        break;
    }
  }

  #enqueue(sessionId: string, kind: EmbeddedKind, itemId: string): void {
    const key = keyOf(sessionId, kind, itemId);
    this.#vectors.delete(key);
    this.#queue.delete(key);
    this.#queue.set(key, { gen: ++this.#gen, attempts: 0, nextAt: 0 });
  }

  #queueIfMissing(
    sessionId: string,
    kind: EmbeddedKind,
    itemId: string,
    model: string,
  ): void {
    const key = keyOf(sessionId, kind, itemId);
    if (this.#vectors.get(key)?.model === model || this.#queue.has(key)) return;
    this.#queue.set(key, { gen: ++this.#gen, attempts: 0, nextAt: 0 });
  }
}

// --- Internal helpers ---

function keyOf(sessionId: string, kind: EmbeddedKind, itemId: string): string {
  return JSON.stringify([sessionId, kind, itemId]);
}

function parseKey(key: string): {
  sessionId: string;
  kind: EmbeddedKind;
  itemId: string;
} {
  const [sessionId, kind, itemId] = JSON.parse(key) as [
    string,
    EmbeddedKind,
    string,
  ];
  return { sessionId, kind, itemId };
}
