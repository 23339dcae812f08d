import { uuidFromHex } from "../encoding/hash-uuid.js";
import { sha256Hex } from "../encoding/sha256.js";
import { walkToRoot } from "../tree/walk-path.js";
import type { StoredMessageRecord } from "../contracts/provider.js";
import type { SessionSnapshot } from "../contracts/session-info.js";
import type { StoredCompaction } from "../contracts/types.js";

/**
 * The records a fork copies (docs/behavior/manager.md): the raw path root → `atMessageId`, chained in path
 * order, and every overlay whose range lies on it, mapped to the new ids. `idFor` names each
 * copy from its original's id (`copyIds` says how). `null` when the message is not in the
 * snapshot.
 */
export function forkPath(
  snapshot: Pick<SessionSnapshot, "messages" | "compactions">,
  atMessageId: string,
  idFor: CopyIds,
): { messages: StoredMessageRecord[]; compactions: StoredCompaction[] } | null {
  const byId = new Map(
    snapshot.messages.map((record) => [record.message.id, record]),
  );
  if (!byId.has(atMessageId)) return null;
  const path = walkToRoot(
    atMessageId,
    (messageId) => byId.get(messageId)?.parentId,
  ).map((messageId) => byId.get(messageId)!);
  const newIds = new Map(
    path.map((record) => [record.message.id, idFor.message(record.message.id)]),
  );
  const messages = path.map((record, index) => ({
    message: { ...record.message, id: newIds.get(record.message.id)! },
    parentId: index === 0 ? null : newIds.get(path[index - 1]!.message.id)!,
    createdAt: record.createdAt,
  }));
  const compactions = snapshot.compactions
    .filter(
      (overlay) =>
        newIds.has(overlay.fromMessageId) && newIds.has(overlay.toMessageId),
    )
    .map((overlay) => ({
      ...overlay,
      id: idFor.overlay(overlay.id),
      fromMessageId: newIds.get(overlay.fromMessageId)!,
      toMessageId: newIds.get(overlay.toMessageId)!,
    }));
  return { messages, compactions };
}

/** How a fork names the copies of messages and overlays, from the originals' ids. */
export interface CopyIds {
  message(originalId: string): string;
  overlay(originalId: string): string;
}

/**
 * The copies' ids: derived from the fork's `newId` when it has one (a retried fork that races its
 * first attempt then writes the same ids, which the store takes once), else fresh UUIDs; messages
 * keep their originals' ids with `preserveIds`.
 */
export function copyIds(options: {
  preserveIds?: boolean;
  newId?: string;
}): CopyIds {
  const { newId } = options;
  const fresh = (kind: string) => (id: string) =>
    newId === undefined
      ? crypto.randomUUID()
      : derivedId(`${newId}\u0000${kind}\u0000${id}`);
  return {
    message: options.preserveIds ? (id) => id : fresh("message"),
    overlay: fresh("overlay"),
  };
}

/** A UUID-shaped SHA-256 of `text`. */
function derivedId(text: string): string {
  return uuidFromHex(sha256Hex(new TextEncoder().encode(text)));
}
