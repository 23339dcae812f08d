/** The session tree as maps, built once per `GET /tree`: parents, children, paths, leaves. */
import type { Compaction, TreeAnswer, TreeNode } from "./api-types.js";
import { plainText } from "./format.js";

/** Indexed view of a session's tree. */
export class TreeModel {
  readonly nodes = new Map<string, TreeNode>();
  readonly children = new Map<string | null, TreeNode[]>();
  /** Insertion order, the tiebreak for "latest". */
  readonly order = new Map<string, number>();
  readonly activeLeafId: string | null;
  readonly compactions: Compaction[];

  constructor(answer: TreeAnswer) {
    this.activeLeafId = answer.activeLeafId;
    this.compactions = answer.compactions;
    answer.nodes.forEach((node, index) => {
      // Labels are plain text: `**Mon**` reads as Mon beside a node.
      this.nodes.set(node.id, { ...node, preview: plainText(node.preview) });
      this.order.set(node.id, index);
    });
    for (const node of answer.nodes) {
      const parent =
        node.parentId !== null && this.nodes.has(node.parentId)
          ? node.parentId
          : null;
      const list = this.children.get(parent);
      if (list) list.push(node);
      else this.children.set(parent, [node]);
    }
  }

  /** Children of a node (`null`: the roots), oldest first. */
  childrenOf(id: string | null): TreeNode[] {
    return this.children.get(id) ?? [];
  }

  /** The node and its siblings, oldest first. */
  siblingsOf(id: string): TreeNode[] {
    const node = this.nodes.get(id);
    if (!node) return [];
    const parent =
      node.parentId !== null && this.nodes.has(node.parentId)
        ? node.parentId
        : null;
    return this.childrenOf(parent);
  }

  /** Ids from the root down to `id` (empty when unknown). */
  pathTo(id: string | null): string[] {
    const path: string[] = [];
    const seen = new Set<string>();
    let current = id === null ? undefined : this.nodes.get(id);
    while (current && !seen.has(current.id)) {
      seen.add(current.id);
      path.push(current.id);
      current =
        current.parentId === null
          ? undefined
          : this.nodes.get(current.parentId);
    }
    return path.reverse();
  }

  /** True when `ancestor` is on the path to `id` (or is `id`). */
  isOnPath(ancestor: string, id: string | null): boolean {
    return this.pathTo(id).includes(ancestor);
  }

  /** The most recently inserted leaf below `id` (or `id` itself when it is a leaf). */
  latestLeafUnder(id: string): string {
    let best = id;
    let bestOrder = -1;
    const stack = [id];
    while (stack.length > 0) {
      const current = stack.pop()!;
      const kids = this.childrenOf(current);
      if (kids.length === 0) {
        const order = this.order.get(current) ?? -1;
        if (order > bestOrder) {
          best = current;
          bestOrder = order;
        }
      }
      for (const child of kids) stack.push(child.id);
    }
    return best;
  }

  /**
   * The leaf to show for a message: the active leaf when the message is on the active path,
   * else the latest leaf below it.
   */
  leafFor(id: string): string {
    if (this.activeLeafId && this.isOnPath(id, this.activeLeafId))
      return this.activeLeafId;
    return this.latestLeafUnder(id);
  }

  /** The stored ids an overlay covers, root side first (empty when off any path). */
  coveredBy(compaction: Compaction): string[] {
    const path = this.pathTo(compaction.toMessageId);
    const start = path.indexOf(compaction.fromMessageId);
    return start < 0 ? [] : path.slice(start);
  }

  /**
   * Names the branch of each message it is given, as a search hit says it: "on the active branch", or
   * "on branch 2 of 3 after “…”" for one that leaves the active branch at that message's children.
   * `null` for an id the tree does not hold (an overlay's summary).
   */
  branchNamer(): (id: string) => string | null {
    const active = new Set(this.pathTo(this.activeLeafId));
    return (id) => {
      if (!this.nodes.has(id)) return null;
      if (active.has(id)) return "on the active branch";
      const path = this.pathTo(id);
      const leaves = path.findIndex((step) => !active.has(step));
      const first = path[leaves]!;
      const siblings = this.siblingsOf(first);
      const place = `on branch ${siblings.findIndex((s) => s.id === first) + 1} of ${siblings.length}`;
      const parent = leaves > 0 ? this.nodes.get(path[leaves - 1]!) : undefined;
      if (!parent) return `${place} (another root)`;
      const preview =
        parent.preview.length > 40
          ? parent.preview.slice(0, 39) + "…"
          : parent.preview;
      return `${place} after “${preview || parent.role}”`;
    };
  }

  /** Number of nodes with more than one child (and several roots, if any). */
  branchPointCount(): number {
    let count = 0;
    for (const list of this.children.values()) if (list.length > 1) count++;
    return count;
  }
}
