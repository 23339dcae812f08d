/**
 * The embedding worker, store selection and a session's side of them, loaded together on first
 * use (embedding-handle.ts, session-embeddings.ts).
 */
import type { EmbeddingIndex } from "./embedding-index.js";
import type { EmbeddingStatusEvent } from "./types.js";

export { EmbeddingIndex } from "./embedding-index.js";
import type { BackendEmbeddings } from "../contracts/embedding-store.js";
import { requireEmbeddings } from "./embedding-stores.js";

export {
  embeddingStoreFor,
  removeStoreEmbeddings,
  requireEmbeddings,
  trackIndex,
} from "./embedding-stores.js";

/** What this module uses of a Session's runtime (structural: no import cycle with it). */
export interface RuntimeLike {
  readonly embeddings: {
    handle: { index(target: BackendEmbeddings): Promise<EmbeddingIndex> };
  } | null;
  ready(): Promise<{ embeddings: BackendEmbeddings | null }>;
  readonly status: { emit(event: EmbeddingStatusEvent): void };
}

/**
 * The session's index, or `null` without `withEmbeddings()`. The first call also sends the
 * index's progress events to this session's `onStatus` listeners and broadcaster.
 */
export async function sessionIndex(
  runtime: RuntimeLike,
): Promise<EmbeddingIndex | null> {
  const embeddings = runtime.embeddings;
  if (!embeddings) return null;
  const parts = await runtime.ready();
  const index = await embeddings.handle.index(
    requireEmbeddings(parts.embeddings, "withEmbeddings()"),
  );
  hear(index, runtime);
  return index;
}

/**
 * Sends the index's progress events to the session's `onStatus` listeners and broadcaster. The
 * index holds sessions weakly where the runtime has `WeakRef`, so a session the manager's cache
 * dropped stops hearing and is freed.
 */
function hear(index: EmbeddingIndex, runtime: RuntimeLike): void {
  let heard = hearers.get(index);
  if (!heard) {
    const refs = new Set<Ref>();
    heard = { refs, runtimes: new WeakSet() };
    hearers.set(index, heard);
    index.subscribe((event) => {
      for (const ref of refs) {
        const live = ref.deref();
        if (live) live.status.emit(event);
        else refs.delete(ref);
      }
    });
  }
  if (heard.runtimes.has(runtime)) return;
  heard.runtimes.add(runtime);
  heard.refs.add(
    typeof WeakRef === "function"
      ? new WeakRef(runtime)
      : { deref: () => runtime },
  );
}

type Ref = { deref(): RuntimeLike | undefined };

const hearers = new WeakMap<
  EmbeddingIndex,
  { refs: Set<Ref>; runtimes: WeakSet<RuntimeLike> }
>();
