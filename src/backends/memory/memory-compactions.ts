import { assertCompactionArguments } from "../../session/tree/compaction-args.js";
import type {
  CompactionMeta,
  StoredCompaction,
} from "../../session/contracts/types.js";
import { publishMemoryChange } from "./memory-changes.js";
import type { MemoryStore } from "./memory-store.js";

/**
 * Stores an overlay of this session, publishes the change, and returns a copy of it
 * (docs/behavior/overlays.md): the stored overlay is never handed out, so callers cannot alter it.
 */
export function insertCompaction(
  store: MemoryStore,
  sessionId: string,
  summary: string,
  fromMessageId: string,
  toMessageId: string,
  meta?: CompactionMeta,
): StoredCompaction {
  assertCompactionArguments(summary, fromMessageId, toMessageId, "memory");
  const overlay: StoredCompaction = {
    id: crypto.randomUUID(),
    summary,
    fromMessageId,
    toMessageId,
    createdAt: new Date().toISOString(),
    ...(meta ? { meta: { ...meta } } : {}),
  };
  store.session(sessionId).compactions.push(overlay);
  publishMemoryChange(store, sessionId, "compaction", [overlay.id]);
  return structuredClone(overlay);
}

/** Deletes one overlay of this session; `false` (and no change event) when it does not exist. */
export function removeCompaction(
  store: MemoryStore,
  sessionId: string,
  id: string,
): boolean {
  const data = store.peek(sessionId);
  if (!data) return false;
  const before = data.compactions.length;
  data.compactions = data.compactions.filter((overlay) => overlay.id !== id);
  if (data.compactions.length === before) return false;
  publishMemoryChange(store, sessionId, "compaction", [id]);
  return true;
}
