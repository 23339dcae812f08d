// The plain model the property tests hold every backend to: a session's tree as a map of rows,
// written from the rules of docs/behavior/messages-and-tree.md, overlays.md and history.md, with
// no storage and no cleverness. Its answers are what a backend must answer.

export interface ModelRow {
  parentId: string | null;
  text: string;
  seq: number;
}

export interface ModelOverlay {
  from: string;
  to: string;
  summary: string;
}

/** What a read path shows: a stored message by id, or an overlay by its summary. */
export type ModelEntry = string;

export class TreeModel {
  readonly rows = new Map<string, ModelRow>();
  /** Oldest first, as `getCompactions()` returns them. */
  overlays: ModelOverlay[] = [];
  private pointer: { leafId: string; newestAtSwitch: string | null } | null =
    null;
  private nextSeq = 0;

  ids(): string[] {
    return [...this.rows.keys()];
  }

  /** Leaves, oldest first. */
  leaves(): string[] {
    const parents = new Set([...this.rows.values()].map((row) => row.parentId));
    return this.ids().filter((id) => !parents.has(id));
  }

  /** The newest leaf by insertion order, ignoring the branch pointer. */
  newestLeaf(): string | null {
    return this.leaves().at(-1) ?? null;
  }

  /** The active leaf: the switched-to message while the pointer holds, else the newest leaf. */
  activeLeaf(): string | null {
    const pointer = this.pointer;
    if (
      pointer &&
      this.rows.has(pointer.leafId) &&
      pointer.newestAtSwitch === this.newestLeaf()
    )
      return pointer.leafId;
    return this.newestLeaf();
  }

  /** Root → id. */
  path(id: string): string[] {
    const path: string[] = [];
    for (let at: string | null = id; at !== null;) {
      path.push(at);
      at = this.rows.get(at)!.parentId;
    }
    return path.reverse();
  }

  /** The read path to `leafId` (default the active leaf) with overlays applied. */
  history(leafId?: string): ModelEntry[] {
    const leaf = leafId ?? this.activeLeaf();
    if (leaf === null) return [];
    const path = this.path(leaf);
    const position = new Map(path.map((id, index) => [id, index]));
    const entries: ModelEntry[] = [];
    for (let index = 0; index < path.length; index++) {
      const newest = this.overlays.findLast(
        (overlay) =>
          overlay.from === path[index] &&
          (position.get(overlay.to) ?? -1) >= index,
      );
      if (newest) {
        entries.push(`summary:${newest.summary}`);
        index = position.get(newest.to)!;
      } else entries.push(path[index]!);
    }
    return entries;
  }

  children(id: string): string[] {
    return this.ids().filter((child) => this.rows.get(child)!.parentId === id);
  }

  /** `appendMessage`: idempotent by id; `undefined` parent = the active leaf; unknown = a root. */
  append(id: string, text: string, parentId: string | null | undefined): void {
    if (this.rows.has(id)) return;
    let parent = parentId === undefined ? this.activeLeaf() : parentId;
    if (parent !== null && !this.rows.has(parent)) parent = null;
    this.rows.set(id, { parentId: parent, text, seq: this.nextSeq++ });
    this.pointer = null;
  }

  update(id: string, text: string): void {
    const row = this.rows.get(id);
    if (row) row.text = text;
  }

  switchBranch(leafId: string): void {
    this.pointer = { leafId, newestAtSwitch: this.newestLeaf() };
  }

  addOverlay(from: string, to: string, summary: string): void {
    this.overlays.push({ from, to, summary });
  }

  /**
   * `session.compact(leaf)` with the fake summarizer that picks the `a`-th and `b`-th real
   * message of the read path: the range starts at the earliest of its own start and the starts
   * of the overlays visible on the path (docs/behavior/overlays.md, "Manual compaction" step 6).
   */
  compact(
    leafId: string | null,
    a: number,
    b: number,
    summary: string,
  ): { from: string; to: string } | null {
    const leaf = leafId ?? this.activeLeaf();
    if (leaf === null) return null;
    const history = this.history(leaf);
    const real = history.filter((entry) => !entry.startsWith("summary:"));
    if (real.length === 0) return null;
    const [first, last] = [a % real.length, b % real.length].sort(
      (x, y) => x - y,
    );
    const path = this.path(leaf);
    const position = new Map(path.map((id, index) => [id, index]));
    let from = position.get(real[first!]!)!;
    for (const overlay of this.overlays) {
      const start = position.get(overlay.from);
      const visible =
        history.includes(`summary:${overlay.summary}`) ||
        (start !== undefined && position.has(overlay.to));
      if (visible && start !== undefined && start < from) from = start;
    }
    const range = { from: path[from]!, to: real[last!]! };
    this.overlays.push({ ...range, summary });
    return range;
  }

  removeOverlay(index: number): void {
    this.overlays.splice(index, 1);
  }

  /** `deleteMessages`: children move up to the nearest survivor; overlays shrink or go. */
  delete(ids: readonly string[]): void {
    const doomed = new Set(ids.filter((id) => this.rows.has(id)));
    if (doomed.size === 0) return;
    const survivor = (id: string | null): string | null => {
      let at = id;
      while (at !== null && doomed.has(at)) at = this.rows.get(at)!.parentId;
      return at;
    };
    this.overlays = this.overlays.flatMap((overlay) => {
      const path = this.path(overlay.to);
      const start = path.indexOf(overlay.from);
      if (start < 0) return [overlay];
      const kept = path.slice(start).filter((id) => !doomed.has(id));
      return kept.length === 0
        ? []
        : [{ ...overlay, from: kept[0]!, to: kept.at(-1)! }];
    });
    for (const [id, row] of this.rows)
      if (!doomed.has(id)) row.parentId = survivor(row.parentId);
    for (const id of doomed) this.rows.delete(id);
    if (this.pointer && doomed.has(this.pointer.leafId)) this.pointer = null;
  }

  /**
   * `manager.erase({ sessionId, messageIds })`: as `delete`, except that an overlay whose range
   * held an erased message (or that ends on one) goes instead of shrinking, since its summary was
   * written from it (docs/behavior/erase-and-retention.md).
   */
  erase(ids: readonly string[]): void {
    const doomed = new Set(ids.filter((id) => this.rows.has(id)));
    if (doomed.size === 0) return;
    this.overlays = this.overlays.filter((overlay) => {
      if (doomed.has(overlay.from) || doomed.has(overlay.to)) return false;
      const path = this.rows.has(overlay.to) ? this.path(overlay.to) : [];
      const start = path.indexOf(overlay.from);
      return start < 0 || !path.slice(start).some((id) => doomed.has(id));
    });
    this.delete([...doomed]);
  }

  /** `manager.prune({ abandonedBranchesOlderThan })` with every message older than the cutoff. */
  pruneBranches(): void {
    const leaf = this.activeLeaf();
    const active = new Set(leaf === null ? [] : this.path(leaf));
    this.erase(this.ids().filter((id) => !active.has(id)));
  }

  clear(): void {
    this.rows.clear();
    this.overlays = [];
    this.pointer = null;
  }
}
