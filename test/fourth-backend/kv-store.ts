// The store of the fourth backend: JSON documents in one key-value map, as a document database
// or a KV namespace keeps them. Every write reads a document, changes it and puts it back whole,
// synchronously, so a write is atomic against every other caller in the process. Written against
// the public entries only: nothing here imports Arbor's sources.
import {
  InProcessChangeLog,
  memoryBackend,
  type Backend,
  type BackendEmbeddings,
} from "arbor-memory/session";
import { kvEmbeddings } from "./kv-embeddings.js";

/** The documents, by key; `dump()` is every one of them as text. */
export class KvStore {
  readonly #docs = new Map<string, string>();
  /** The store's change log: every committed write, with resumable positions. */
  readonly changes = new InProcessChangeLog();
  /**
   * The search engine beside the documents (as a document database keeps a search index beside
   * its collections): the messages, overlays and registry rows are mirrored into it, and it
   * answers the text searches. Arbor exports no text-search engine of its own, so a
   * store that must rank as Arbor's search rules require borrows a whole backend for it, reached
   * through the `Backend` contract like any other.
   */
  readonly engine: Backend = memoryBackend();
  /** Vectors and the embedding queue, fed by `changes`. */
  readonly embeddings: BackendEmbeddings = kvEmbeddings(this);
  /** Insertion order across the store: the latest leaf is the newest row, never the newest date. */
  #seq = 0;

  /** The store's write lock: its writes run one at a time, in call order (state the store owns). */
  #tail: Promise<unknown> = Promise.resolve();

  exclusive<T>(work: () => Promise<T> | T): Promise<T> {
    const run = this.#tail.then(work);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  nextSeq(): number {
    return ++this.#seq;
  }

  read<T>(key: string): T | null {
    const text = this.#docs.get(key);
    return text === undefined ? null : (JSON.parse(text) as T);
  }

  write(key: string, value: unknown): void {
    this.#docs.set(key, JSON.stringify(value));
  }

  delete(key: string): boolean {
    return this.#docs.delete(key);
  }

  /** The keys under `prefix`, in insertion order. */
  keys(prefix: string): string[] {
    return [...this.#docs.keys()].filter((key) => key.startsWith(prefix));
  }

  /** Every document, as stored: what the erase suite scans for traces. */
  dump(): string {
    return [...this.#docs].map(([key, text]) => `${key} ${text}`).join("\n");
  }
}
