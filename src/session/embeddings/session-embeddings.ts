/**
 * The Session's side of embeddings: `withEmbeddings()`, `flushEmbeddings()` and the wake-up
 * after writes. The index is opened on first use, over the session's store.
 */
import type { SessionRuntime } from "../facade/session-runtime.js";
import { EmbeddingHandle } from "./embedding-handle.js";
import type { Embedder, EmbeddingOptions } from "./types.js";

/**
 * Attaches a handle (a new one, or the manager's) to a session's runtime. Nothing is opened
 * here: the session may still be in builder state.
 */
export function attachEmbeddings(
  runtime: SessionRuntime,
  embedder: Embedder | EmbeddingHandle,
  options?: EmbeddingOptions,
): void {
  const handle =
    embedder instanceof EmbeddingHandle
      ? embedder
      : new EmbeddingHandle(embedder, options);
  runtime.embeddings = {
    handle,
    onWrite: () => {
      import("./embedding-runtime.js")
        .then(({ sessionIndex }) => sessionIndex(runtime))
        .then((index) => index?.kick())
        .catch((error: unknown) => {
          console.warn(`[arbor] Embeddings could not start: ${String(error)}`);
        });
    },
  };
}

/** Waits until the store's queue is empty; without embeddings, returns at once. */
export async function flushSessionEmbeddings(
  runtime: SessionRuntime,
): Promise<void> {
  if (!runtime.embeddings) return;
  const { sessionIndex } = await import("./embedding-runtime.js");
  await (await sessionIndex(runtime))?.flush();
}
