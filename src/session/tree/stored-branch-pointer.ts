/**
 * How the branch `switchBranch()` chose is stored (docs/behavior/messages-and-tree.md): a JSON
 * record in the session's config under `ACTIVE_LEAF_KEY`. The Session's `BranchPointer`
 * (state/branch-pointer.ts) writes and follows it; prune and erase read it without a Session.
 */

/** The `assistant_config` key of the explicit active leaf. */
export const ACTIVE_LEAF_KEY = "active_leaf";

/** The stored pointer. */
export interface StoredBranchPointer {
  /** The message the active branch ends at. */
  leafId: string;
  /** The newest leaf when the pointer was set: any later append (which changes it) ends the pointer. */
  newestAtSwitch: string | null;
}

/** The stored value as a pointer, or `null` when there is none or it is not one. */
export function parseBranchPointer(
  stored: string | null | undefined,
): StoredBranchPointer | null {
  if (!stored) return null;
  try {
    const value = JSON.parse(stored) as {
      leafId?: unknown;
      newestAtSwitch?: unknown;
    } | null;
    return typeof value?.leafId === "string"
      ? {
          leafId: value.leafId,
          newestAtSwitch:
            typeof value.newestAtSwitch === "string"
              ? value.newestAtSwitch
              : null,
        }
      : null;
  } catch {
    return null;
  }
}
