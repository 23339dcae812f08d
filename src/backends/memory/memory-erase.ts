import {
  zeroCounts,
  type StoreEraseResult,
  type StoreEraseTarget,
} from "../../session/contracts/erase.js";
import {
  configMentions,
  overlaysCovering,
  rangeIds,
  toolCallIdsOf,
} from "../../session/erase/erase-rules.js";
import type { MemoryStore } from "./memory-store.js";
import { deleteRows } from "./memory-writes.js";
import { eraseMemoryStreams } from "./memory-streams.js";

/**
 * Erase on a `MemoryStore` (docs/behavior/erase-and-retention.md). One target is erased
 * synchronously, so nothing interleaves with it. `dryRun` only counts; `pending` carries the
 * attachment references earlier targets of the same dry run would release, so the counts of a
 * batch equal those of erasing its targets one after another.
 */
export function eraseMemoryTarget(
  store: MemoryStore,
  target: StoreEraseTarget,
  dryRun: boolean,
  pending: Map<string, number> = new Map(),
): StoreEraseResult {
  const { sessionId } = target;
  const counts = zeroCounts();
  const data = store.peek(sessionId);
  const whole = target.messageIds === null;
  const doomed = new Set(
    (whole ? [...(data?.rows.keys() ?? [])] : target.messageIds!).filter((id) =>
      data?.rows.has(id),
    ),
  );
  const rows = [...doomed].map((id) => data!.rows.get(id)!);
  const overlays = whole
    ? (data?.compactions ?? [])
    : overlaysCovering(data?.compactions ?? [], doomed, (overlay) =>
        rangeIds(
          overlay.toMessageId,
          overlay.fromMessageId,
          (id) => data!.rows.get(id)?.parentId,
        ),
      );
  const overlayIds = overlays.map((overlay) => overlay.id);
  counts.messages = doomed.size;
  counts.overlays = overlays.length;
  counts.attachments = attachmentsReleased(
    store,
    store.attachments.referencedBy(sessionId, whole ? null : doomed),
    pending,
  );
  const toolCalls = new Set(rows.flatMap((row) => toolCallIdsOf(row.json)));
  const history = store.blockHistories.get(sessionId);
  const doomedVersion = (version: { toolCallId?: string }) =>
    whole ||
    (version.toolCallId !== undefined && toolCalls.has(version.toolCallId));
  const config = [...(data?.config ?? [])].filter(
    ([key, value]) => whole || configMentions(key, value, doomed),
  );
  counts.configRows = config.length;
  counts.contextRows = whole
    ? target.contextKeys.filter((key) => store.contextRows.has(key)).length
    : 0;
  counts.sessions = whole && store.registry.has(sessionId) ? 1 : 0;
  if (dryRun) {
    counts.blockVersions = history
      ? history.entries().flatMap(([, list]) => list.filter(doomedVersion))
          .length
      : 0;
    return { counts, messageIds: [...doomed], overlayIds };
  }

  counts.blockVersions = history?.removeWhere(doomedVersion) ?? 0;
  eraseMemoryStreams(store, sessionId);
  if (whole) {
    store.attachments.releaseSession(sessionId);
    store.sessions.delete(sessionId);
    store.blockHistories.delete(sessionId);
    store.registry.delete(sessionId);
    for (const key of target.contextKeys) store.contextRows.delete(key);
  } else if (data) {
    const dropped = new Set(overlayIds);
    data.compactions = data.compactions.filter((o) => !dropped.has(o.id));
    for (const [key] of config) data.config.delete(key);
    deleteRows(store, sessionId, [...doomed]);
  }
  return { counts, messageIds: [...doomed], overlayIds };
}

/** How many attachments lose their last reference when `hashes` (one per reference) are released. */
function attachmentsReleased(
  store: MemoryStore,
  hashes: readonly string[],
  pending: Map<string, number>,
): number {
  let gone = 0;
  for (const hash of hashes) {
    const released = (pending.get(hash) ?? 0) + 1;
    pending.set(hash, released);
    if (released === store.attachments.referenceCount(hash)) gone++;
  }
  return gone;
}
