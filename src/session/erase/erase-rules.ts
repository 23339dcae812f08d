/**
 * The pure rules of erase and prune (docs/behavior/erase-and-retention.md), shared by every
 * backend: which overlays an erase drops, which block history entries and config rows go with an
 * erased message, and which branches are abandoned. The audit rule is in audit-erase.ts, the
 * epoch a compaction checks in erase-epoch.ts.
 */
import type { StoredCompaction } from "../contracts/types.js";
import { ACTIVE_LEAF_KEY } from "../tree/stored-branch-pointer.js";

/**
 * The overlays an erase of `doomed` drops: every overlay with an endpoint among them, and every
 * overlay whose range (`rangeOf`: the ids from its `to` up to its `from`, or `null` when `from`
 * is not an ancestor) holds one. Such a summary was written from an erased message and may
 * quote it, so shrinking the range (what a delete does) would keep the leak.
 */
export function overlaysCovering(
  overlays: readonly StoredCompaction[],
  doomed: ReadonlySet<string>,
  rangeOf: (overlay: StoredCompaction) => readonly string[] | null,
): StoredCompaction[] {
  return overlays.filter(
    (overlay) =>
      doomed.has(overlay.fromMessageId) ||
      doomed.has(overlay.toMessageId) ||
      (rangeOf(overlay) ?? []).some((id) => doomed.has(id)),
  );
}

/** The ids from `toId` up to `fromId` over `parentOf`, or `null` when `fromId` is not an ancestor. */
export function rangeIds(
  toId: string,
  fromId: string,
  parentOf: (id: string) => string | null | undefined,
): string[] | null {
  const ids: string[] = [];
  const seen = new Set<string>();
  for (let at: string | null | undefined = toId; typeof at === "string";) {
    if (seen.has(at)) return null;
    seen.add(at);
    ids.push(at);
    if (at === fromId) return ids;
    at = parentOf(at);
  }
  return null;
}

/** The tool call ids in a stored message's JSON: block history written by those calls goes with it. */
export function toolCallIdsOf(json: string): string[] {
  let parts: unknown;
  try {
    parts = (JSON.parse(json) as { parts?: unknown }).parts;
  } catch {
    return [];
  }
  if (!Array.isArray(parts)) return [];
  const ids: string[] = [];
  for (const part of parts) {
    const id = (part as { toolCallId?: unknown } | null)?.toolCallId;
    if (typeof id === "string") ids.push(id);
  }
  return ids;
}

/** Whether a config row points at an erased message (today: the branch pointer). */
export function configMentions(
  key: string,
  value: string,
  doomed: ReadonlySet<string>,
): boolean {
  if (key !== ACTIVE_LEAF_KEY) return false;
  try {
    const pointer = JSON.parse(value) as Record<string, unknown> | null;
    return Object.values(pointer ?? {}).some(
      (v) => typeof v === "string" && doomed.has(v),
    );
  } catch {
    return false;
  }
}

/** One block history entry as an erase sees it. */
export interface HistoryEntry {
  label: string;
  version: number;
  content: string;
  previousContent: string | null;
  toolCallId: string | null;
}

/**
 * The `previousContent` fixes after block history entries are dropped: an entry that followed a
 * dropped one quotes the dropped content there, so it gets the content of the nearest kept
 * entry before it (or `null`). `entries` are the label's entries, oldest first.
 */
export function relinkHistory(
  entries: readonly HistoryEntry[],
  dropped: (entry: HistoryEntry) => boolean,
): Array<{ label: string; version: number; previousContent: string | null }> {
  const fixes: Array<{
    label: string;
    version: number;
    previousContent: string | null;
  }> = [];
  const lastKept = new Map<string, string | null>();
  const afterDropped = new Set<string>();
  for (const entry of entries) {
    if (dropped(entry)) {
      afterDropped.add(entry.label);
      continue;
    }
    if (afterDropped.has(entry.label)) {
      const previousContent = lastKept.get(entry.label) ?? null;
      if (previousContent !== entry.previousContent)
        fixes.push({
          label: entry.label,
          version: entry.version,
          previousContent,
        });
      afterDropped.delete(entry.label);
    }
    lastKept.set(entry.label, entry.content);
  }
  return fixes;
}

/** A block history row, as the relink after an erase reads it. */
export interface HistoryRow {
  label: string;
  version: number;
  content: string;
  previous_content: string | null;
  tool_call_id: string | null;
}

/** The relink's view of a history row. */
export function historyEntry(row: HistoryRow): HistoryEntry {
  return {
    label: row.label,
    version: Number(row.version),
    content: row.content,
    previousContent: row.previous_content,
    toolCallId: row.tool_call_id,
  };
}

/** One stored message as prune sees it. */
export interface BranchRecord {
  id: string;
  parentId: string | null;
  createdAt: string;
}

/**
 * The abandoned branches of a session (docs/behavior/erase-and-retention.md#prune): messages off
 * the active path, created before `cutoff`, whose descendants are all the same. Off-path
 * messages have only off-path descendants, so the set is closed downwards and no survivor is
 * re-parented. Returns the ids and the number of branches (subtrees whose parent stays).
 */
export function abandonedBranches(
  records: readonly BranchRecord[],
  activePath: ReadonlySet<string>,
  cutoff: string,
): { ids: string[]; branches: number } {
  const parentOf = new Map(records.map((r) => [r.id, r.parentId]));
  // A message stays when it or any descendant must stay: walk up from each one that must.
  const kept = new Set<string>();
  for (const record of records) {
    if (!activePath.has(record.id) && record.createdAt < cutoff) continue;
    for (
      let at: string | null | undefined = record.id;
      typeof at === "string" && !kept.has(at);
      at = parentOf.get(at)
    )
      kept.add(at);
  }
  const ids = records.filter((r) => !kept.has(r.id)).map((r) => r.id);
  const doomed = new Set(ids);
  const branches = ids.filter((id) => {
    const parent = parentOf.get(id);
    return typeof parent !== "string" || !doomed.has(parent);
  }).length;
  return { ids, branches };
}
