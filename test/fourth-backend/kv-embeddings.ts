// Vectors and the embedding queue of the key-value store (`BackendEmbeddings`): kept beside the
// documents once embeddings are opened, fed by the store's own change feed (a write records its
// change after it is applied), ranked by an exact cosine scan.
import type {
  BackendEmbeddings,
  ChangeEvent,
  EmbeddedKind,
  EmbeddingCounts,
  EmbeddingStore,
  NearestQuery,
  QueueItem,
  VectorHit,
} from "arbor-memory/session";
import { sessionKey, type SessionDoc } from "./kv-documents.js";
import type { KvStore } from "./kv-store.js";

interface Queued {
  gen: number;
  attempts: number;
  nextAt: number;
}

interface Stored {
  model: string;
  vector: Float32Array;
}

/** The store's embeddings: one `EmbeddingStore` per store, opened on first use. */
export function kvEmbeddings(store: KvStore): BackendEmbeddings {
  let opened: KvEmbeddingStore | null = null;
  return {
    open: () => Promise.resolve((opened ??= new KvEmbeddingStore(store))),
    exists: () => Promise.resolve(opened !== null),
    count: (sessionId, itemIds) =>
      Promise.resolve(
        opened?.countErasable(sessionId, itemIds) ?? { vectors: 0, queued: 0 },
      ),
    erase: (sessionId, itemIds) =>
      opened ? opened.erase(sessionId, itemIds) : Promise.resolve(),
    remove: () => {
      const removed = opened?.close() ?? { vectors: 0, queued: 0 };
      opened = null;
      return Promise.resolve(removed);
    },
  };
}

class KvEmbeddingStore implements EmbeddingStore {
  readonly engine = "exact";
  readonly #queue = new Map<string, Queued>();
  readonly #vectors = new Map<string, Stored>();
  #gen = 0;
  readonly #unwatch: () => void;

  constructor(private readonly store: KvStore) {
    this.#unwatch = store.changes.watch((event) => this.#apply(event), {
      sessionId: null,
    });
  }

  /** Stops hearing writes and drops everything; says how much there was. */
  close(): { vectors: number; queued: number } {
    this.#unwatch();
    const removed = { vectors: this.#vectors.size, queued: this.#queue.size };
    this.#vectors.clear();
    this.#queue.clear();
    return removed;
  }

  prepare(model: string): Promise<void> {
    for (const key of this.store.keys("session:")) {
      const sessionId = key.slice("session:".length);
      const doc = this.store.read<SessionDoc>(key)!;
      for (const id of Object.keys(doc.rows))
        this.#queueIfMissing(sessionId, "message", id, model);
      for (const overlay of doc.overlays)
        this.#queueIfMissing(sessionId, "summary", overlay.id, model);
    }
    return Promise.resolve();
  }

  claim(limit: number, now: number, leaseUntil: number): Promise<QueueItem[]> {
    const items: QueueItem[] = [];
    for (const [key, queued] of this.#queue) {
      if (items.length >= limit) break;
      if (queued.nextAt > now) continue;
      // The lease: another worker skips the item until it is due again.
      queued.nextAt = leaseUntil;
      items.push({
        ...parseKey(key),
        gen: queued.gen,
        attempts: queued.attempts,
      });
    }
    return Promise.resolve(items);
  }

  texts(items: readonly QueueItem[]): Promise<Array<string | null>> {
    return Promise.resolve(
      items.map((item) => {
        const doc = this.store.read<SessionDoc>(sessionKey(item.sessionId));
        if (item.kind === "summary") {
          const overlay = doc?.overlays.find((o) => o.id === item.itemId);
          return overlay?.summary || null;
        }
        const row = doc?.rows[item.itemId];
        if (!row) return null;
        const { parts } = JSON.parse(row.json) as {
          parts: Array<{ type: string; text?: unknown }>;
        };
        const text = parts
          .flatMap((part) =>
            part.type === "text" && typeof part.text === "string"
              ? [part.text]
              : [],
          )
          .join("\n");
        return text || null;
      }),
    );
  }

  complete(
    done: ReadonlyArray<{ item: QueueItem; vector: Float32Array }>,
    gone: readonly QueueItem[],
    model: string,
  ): Promise<void> {
    for (const { item, vector } of done) {
      const key = keyOf(item.sessionId, item.kind, item.itemId);
      // Written again (or erased) since the claim: this vector is late.
      if (this.#queue.get(key)?.gen !== item.gen) continue;
      this.#vectors.set(key, { model, vector });
      this.#queue.delete(key);
    }
    for (const item of gone) {
      const key = keyOf(item.sessionId, item.kind, item.itemId);
      if (this.#queue.get(key)?.gen === item.gen) this.#queue.delete(key);
    }
    return Promise.resolve();
  }

  fail(items: readonly QueueItem[], nextAt: number): Promise<void> {
    for (const item of items) {
      const queued = this.#queue.get(
        keyOf(item.sessionId, item.kind, item.itemId),
      );
      if (queued?.gen !== item.gen) continue;
      queued.attempts++;
      queued.nextAt = nextAt;
    }
    return Promise.resolve();
  }

  pending(sessionId?: string): Promise<number> {
    return Promise.resolve(
      [...this.#queue.keys()].filter(
        (key) =>
          sessionId === undefined || parseKey(key).sessionId === sessionId,
      ).length,
    );
  }

  nextDue(): Promise<number | null> {
    let next: number | null = null;
    for (const queued of this.#queue.values())
      if (next === null || queued.nextAt < next) next = queued.nextAt;
    return Promise.resolve(next);
  }

  nearest(query: Float32Array, options: NearestQuery): Promise<VectorHit[]> {
    const sessions =
      options.sessionIds === null ? null : new Set(options.sessionIds);
    const items =
      options.itemIds === undefined ? null : new Set(options.itemIds);
    const hits: VectorHit[] = [];
    for (const [key, stored] of this.#vectors) {
      if (stored.model !== options.model) continue;
      if (stored.vector.length !== query.length) continue;
      const where = parseKey(key);
      if (sessions && !sessions.has(where.sessionId)) continue;
      if (items && !items.has(where.itemId)) continue;
      hits.push({ ...where, score: cosine(query, stored.vector) });
    }
    return Promise.resolve(
      hits.sort((a, b) => b.score - a.score).slice(0, options.limit),
    );
  }

  /** How many vectors and queued items `erase()` with these arguments would remove. */
  countErasable(
    sessionId: string,
    itemIds: readonly string[] | null,
  ): { vectors: number; queued: number } {
    const matches = matcher(sessionId, itemIds);
    return {
      vectors: [...this.#vectors.keys()].filter(matches).length,
      queued: [...this.#queue.keys()].filter(matches).length,
    };
  }

  erase(sessionId: string, itemIds: readonly string[] | null): Promise<void> {
    const matches = matcher(sessionId, itemIds);
    for (const map of [this.#queue, this.#vectors] as Array<
      Map<string, unknown>
    >)
      for (const key of [...map.keys()]) if (matches(key)) map.delete(key);
    return Promise.resolve();
  }

  async count(sessionId: string): Promise<EmbeddingCounts> {
    const models = new Set<string>();
    let vectors = 0;
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

  /** Keeps the queue and the vectors in step with one committed write. */
  #apply(event: ChangeEvent): void {
    const { sessionId, ids } = event;
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
      case "compaction": {
        const doc = this.store.read<SessionDoc>(sessionKey(sessionId));
        for (const id of ids)
          if (doc?.overlays.some((overlay) => overlay.id === id))
            this.#enqueue(sessionId, "summary", id);
          else void this.erase(sessionId, [id]);
        break;
      }
      default:
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

function matcher(
  sessionId: string,
  itemIds: readonly string[] | null,
): (key: string) => boolean {
  const ids = itemIds === null ? null : new Set(itemIds);
  return (key) => {
    const where = parseKey(key);
    return (
      where.sessionId === sessionId && (ids === null || ids.has(where.itemId))
    );
  };
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    dot += a[index]! * b[index]!;
    normA += a[index]! * a[index]!;
    normB += b[index]! * b[index]!;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
