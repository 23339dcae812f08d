import { planTreeRepair } from "../../session/tree/tree-repair.js";
import { walkToRoot } from "../../session/tree/walk-path.js";
import type { MemoryRow, MemorySessionData } from "./memory-store.js";

/** The most recently inserted row without children (cached on the session data). */
export function latestLeafRow(data: MemorySessionData): MemoryRow | null {
  if (data.latestLeaf === undefined) {
    data.latestLeaf = null;
    for (let index = data.ordered.length - 1; index >= 0; index--) {
      const row = data.ordered[index]!;
      if (data.childCount(row.id) === 0) {
        data.latestLeaf = row;
        break;
      }
    }
  }
  return data.latestLeaf;
}

/** Adds `row` to the children of `parentId`, keeping insertion order. */
export function pushChild(
  data: MemorySessionData,
  parentId: string,
  row: MemoryRow,
): void {
  const siblings = data.children.get(parentId);
  if (!siblings) data.children.set(parentId, [row]);
  else if (siblings.length === 0 || siblings.at(-1)!.seq < row.seq)
    siblings.push(row);
  else {
    // Re-parented rows keep insertion order among their new siblings.
    const at = siblings.findIndex((sibling) => sibling.seq > row.seq);
    siblings.splice(at, 0, row);
  }
}

/** The rows from the root to `leafId` (the latest leaf when omitted); empty for an unknown leaf. */
export function pathRows(
  data: MemorySessionData,
  leafId?: string | null,
): MemoryRow[] {
  const leaf = leafId ? data.rows.get(leafId) : latestLeafRow(data);
  if (!leaf) return [];
  return walkToRoot(leaf.id, (id) => data.rows.get(id)?.parentId).map((id) =>
    data.rows.get(id)!,
  );
}

/**
 * Removes the `deleted` rows and repairs the tree they leave (docs/behavior/messages-and-tree.md,
 * "Deleting messages"). The plan comes from `planTreeRepair`, shared with the SQL backends, so
 * surviving children and overlays move exactly as they do there.
 */
export function removeRows(
  data: MemorySessionData,
  deleted: ReadonlySet<string>,
): void {
  const plan = planTreeRepair({
    deleted,
    parentOf: (id) => data.rows.get(id)?.parentId,
    childrenOf: (id) => (data.children.get(id) ?? []).map((row) => row.id),
    overlays: data.compactions,
  });

  const rows = [...deleted].map((id) => data.rows.get(id)!);
  data.textIndex.remove(rows);
  for (const row of rows) {
    data.rows.delete(row.id);
    data.children.delete(row.id);
    if (row.parentId !== null) data.removeChild(row.parentId, row.id);
  }
  for (const { id, parentId } of plan.reparent) {
    const row = data.rows.get(id)!;
    row.parentId = parentId;
    if (parentId !== null) pushChild(data, parentId, row);
  }
  data.ordered = data.ordered.filter((row) => !deleted.has(row.id));
  const moves = new Map(plan.moveOverlays.map((move) => [move.id, move]));
  const dropped = new Set(plan.deleteOverlays);
  data.compactions = data.compactions
    .filter((overlay) => !dropped.has(overlay.id))
    .map((overlay) => {
      const move = moves.get(overlay.id);
      return move ? { ...overlay, ...move } : overlay;
    });
  data.latestLeaf = undefined;
}
