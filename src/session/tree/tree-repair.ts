import type { StoredCompaction } from "../contracts/types.js";

/** What a backend knows about the tree around the messages being deleted, before the delete. */
export interface TreeRepairInput {
  /** Ids being deleted that exist in the session. */
  deleted: ReadonlySet<string>;
  /** Parent of a stored id before the delete: `null` for a root, `undefined` if unknown. */
  parentOf(id: string): string | null | undefined;
  /** Children of a deleted id, before the delete. */
  childrenOf(id: string): readonly string[];
  /** Overlays of the session; only those touching a deleted id are examined. */
  overlays: readonly StoredCompaction[];
}

export interface TreeRepairPlan {
  /** Surviving children moved to the nearest surviving ancestor (`null` = become a root). */
  reparent: Array<{ id: string; parentId: string | null }>;
  /** Overlays whose endpoints move to the nearest surviving message of their range. */
  moveOverlays: Array<{
    id: string;
    fromMessageId: string;
    toMessageId: string;
  }>;
  /** Overlays whose whole range was deleted. */
  deleteOverlays: string[];
}

/**
 * Plans the tree and overlay repair of docs/behavior/messages-and-tree.md, so deleting an interior message keeps older
 * history reachable. Pure: each backend gathers the input and applies the plan in one transaction.
 */
export function planTreeRepair(input: TreeRepairInput): TreeRepairPlan {
  const { deleted } = input;
  const reparent: TreeRepairPlan["reparent"] = [];
  for (const id of deleted) {
    const survivor = nearestSurvivingAncestor(id, input);
    for (const child of input.childrenOf(id)) {
      if (!deleted.has(child)) reparent.push({ id: child, parentId: survivor });
    }
  }

  const moveOverlays: TreeRepairPlan["moveOverlays"] = [];
  const deleteOverlays: string[] = [];
  for (const overlay of input.overlays) {
    if (
      !deleted.has(overlay.fromMessageId) &&
      !deleted.has(overlay.toMessageId)
    )
      continue;
    const range = rangeOnPath(overlay, (id) => input.parentOf(id));
    const surviving = range?.filter((id) => !deleted.has(id)) ?? [];
    const first = surviving[0];
    const last = surviving.at(-1);
    if (first === undefined || last === undefined)
      deleteOverlays.push(overlay.id);
    else
      moveOverlays.push({
        id: overlay.id,
        fromMessageId: first,
        toMessageId: last,
      });
  }
  return { reparent, moveOverlays, deleteOverlays };
}

// --- Internal helpers ---

function nearestSurvivingAncestor(
  id: string,
  input: TreeRepairInput,
): string | null {
  const seen = new Set<string>([id]);
  let current = input.parentOf(id) ?? null;
  while (current !== null && input.deleted.has(current) && !seen.has(current)) {
    seen.add(current);
    current = input.parentOf(current) ?? null;
  }
  return current !== null && input.deleted.has(current) ? null : current;
}

/** The ids from `from` down to `to`, root-most first, or `null` when `from` is not an ancestor of `to`. */
function rangeOnPath(
  overlay: StoredCompaction,
  parentOf: TreeRepairInput["parentOf"],
): string[] | null {
  const chain: string[] = [];
  const seen = new Set<string>();
  let current: string | null | undefined = overlay.toMessageId;
  while (current != null && !seen.has(current)) {
    seen.add(current);
    chain.push(current);
    if (current === overlay.fromMessageId) return chain.reverse();
    current = parentOf(current);
  }
  return null;
}
