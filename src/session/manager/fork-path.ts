import { walkToRoot } from "../core/walk-path.js";
import type { StoredMessageRecord } from "../contracts/provider.js";
import type { SessionSnapshot } from "../contracts/session-info.js";
import type { StoredCompaction } from "../contracts/types.js";

/**
 * The records a fork copies (docs/behavior/manager.md): the raw path root → `atMessageId`, chained in path
 * order, and every overlay whose range lies on it, mapped to the new ids. Ids are fresh unless
 * `preserveIds`. `null` when the message is not in the snapshot.
 */
export function forkPath(
  snapshot: Pick<SessionSnapshot, "messages" | "compactions">,
  atMessageId: string,
  preserveIds: boolean,
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
    path.map((record) => [
      record.message.id,
      preserveIds ? record.message.id : crypto.randomUUID(),
    ]),
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
      id: crypto.randomUUID(),
      fromMessageId: newIds.get(overlay.fromMessageId)!,
      toMessageId: newIds.get(overlay.toMessageId)!,
    }));
  return { messages, compactions };
}
