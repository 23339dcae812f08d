/**
 * Erase's embedding step (manager/erase.ts): the vectors and queued embeddings of the erased
 * messages and overlays. On the sql and PostgreSQL stores the triggers of the embedding tables
 * already drop them in the erase's own write; this step removes whatever a trigger cannot know
 * (queue rows of items that were never stored, a whole session's rows) and covers the in-memory
 * store, whose maps are not in its write. A backend without `embeddings` has none to remove.
 */
import type { StoreEraseResult, StoreEraseTarget } from "../contracts/erase.js";
import type { Backend } from "../contracts/backend.js";

/** Removes the embedding rows of an erased target (after the store's own erase). */
export async function eraseEmbeddings(
  backend: Backend,
  target: StoreEraseTarget,
  result: StoreEraseResult,
): Promise<void> {
  await backend.embeddings?.erase(
    target.sessionId,
    itemIds(target, result.overlayIds),
  );
}

/** How many vectors and queued embeddings erasing the target (with these overlays) removes. */
export async function countEmbeddings(
  backend: Backend,
  target: StoreEraseTarget,
  overlayIds: readonly string[],
): Promise<{ vectors: number; queued: number }> {
  return (
    (await backend.embeddings?.count(
      target.sessionId,
      itemIds(target, overlayIds),
    )) ?? { vectors: 0, queued: 0 }
  );
}

/** Whether the store has ever used embeddings (their tables exist, or a memory index is open). */
export async function hasEmbeddings(backend: Backend): Promise<boolean> {
  return (await backend.embeddings?.exists()) ?? false;
}

// --- Internal helpers ---

function itemIds(
  target: StoreEraseTarget,
  overlayIds: readonly string[],
): readonly string[] | null {
  return target.messageIds === null
    ? null
    : [...target.messageIds, ...overlayIds];
}
