/**
 * Walks from `leafId` to its root through `parentOf` and returns the ids root-most first.
 * Each id is visited once, so a cycle written by raw SQL ends the walk instead of looping (docs/behavior/history.md).
 * There is no depth limit.
 *
 * @param parentOf the parent of a stored id (`null` for a root), `undefined` if the id is not stored.
 */
export function walkToRoot(
  leafId: string,
  parentOf: (id: string) => string | null | undefined,
): string[] {
  const path: string[] = [];
  const visited = new Set<string>();
  let current: string | null | undefined = leafId;
  while (current != null && !visited.has(current)) {
    const parent = parentOf(current);
    if (parent === undefined) break;
    visited.add(current);
    path.push(current);
    current = parent;
  }
  return path.reverse();
}
