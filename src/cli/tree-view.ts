import type { StoredCompaction } from "../session/index.js";
import { oneLine } from "./text.js";

/** One message of the tree as the view needs it. */
export interface TreeViewNode {
  id: string;
  parentId: string | null;
  role: string;
  /** The message's text; cut to one line when drawn. */
  text: string;
}

/** How `renderTree` marks branches and overlays. */
export interface TreeViewOptions {
  /** The leaf of the active branch: its path is drawn with `●`, the rest with `○`. */
  activeLeafId: string | null;
  compactions?: readonly StoredCompaction[];
  /** Characters of message text per line. Default 72. */
  width?: number;
}

const ACTIVE = "●";
const OTHER = "○";

/**
 * Draws a session's message tree with box-drawing characters. A chain of single children stays
 * in one column; only a fork indents, so a long conversation does not drift right. The active
 * path is marked, and each summary overlay is shown after the message it ends at, with the range
 * it covers. Iterative, so a path of any length draws without deep recursion.
 *
 * @example
 * ```text
 * ● u1 user: When is the production deployment?
 * ● a1 assistant: On Friday.
 * ● u2 user: Can we move it to Thursday?
 * ├─○ a2 assistant: Thursday works.
 * └─● a3 assistant: Thursday, if QA signs off.  ◀ active
 * ```
 */
export function renderTree(
  nodes: readonly TreeViewNode[],
  options: TreeViewOptions,
): string {
  const width = options.width ?? 72;
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const children = new Map<string | null, TreeViewNode[]>();
  for (const node of nodes) {
    const parent =
      node.parentId !== null && byId.has(node.parentId) ? node.parentId : null;
    const list = children.get(parent) ?? [];
    list.push(node);
    children.set(parent, list);
  }
  const activePath = pathTo(options.activeLeafId, byId);
  const endingAt = overlaysByEnd(options.compactions ?? [], byId);

  const lines: string[] = [];
  const roots = children.get(null) ?? [];
  const stack: Frame[] = roots
    .map((node, index) => ({
      node,
      prefix: "",
      connector: roots.length === 1 ? "" : branchConnector(index, roots.length),
    }))
    .reverse();
  while (stack.length > 0) {
    const { node, prefix, connector } = stack.pop()!;
    const marker = activePath.has(node.id) ? ACTIVE : OTHER;
    const leafNote = node.id === options.activeLeafId ? "  ◀ active" : "";
    lines.push(
      `${prefix}${connector}${marker} ${node.id} ${node.role}: ${oneLine(node.text, width)}${leafNote}`,
    );
    const below = prefix + continuation(connector);
    for (const overlay of endingAt.get(node.id) ?? []) {
      lines.push(
        `${below}  ⤷ summary ${overlay.compaction.id} covers ${overlay.compaction.fromMessageId} … ${overlay.compaction.toMessageId} (${overlay.covered} messages): ${oneLine(overlay.compaction.summary, width)}`,
      );
    }
    const kids = children.get(node.id) ?? [];
    for (let index = kids.length - 1; index >= 0; index--) {
      stack.push({
        node: kids[index]!,
        prefix: below,
        connector: kids.length === 1 ? "" : branchConnector(index, kids.length),
      });
    }
  }
  return lines.join("\n");
}

// --- Internal helpers ---

interface Frame {
  node: TreeViewNode;
  prefix: string;
  connector: string;
}

function branchConnector(index: number, count: number): string {
  return index === count - 1 ? "└─" : "├─";
}

function continuation(connector: string): string {
  if (connector === "├─") return "│ ";
  if (connector === "└─") return "  ";
  return "";
}

function pathTo(
  leafId: string | null,
  byId: Map<string, TreeViewNode>,
): Set<string> {
  const path = new Set<string>();
  let current = leafId === null ? undefined : byId.get(leafId);
  while (current && !path.has(current.id)) {
    path.add(current.id);
    current =
      current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return path;
}

/** Overlays keyed by the message they end at, with how many stored messages they cover. */
function overlaysByEnd(
  compactions: readonly StoredCompaction[],
  byId: Map<string, TreeViewNode>,
): Map<string, Array<{ compaction: StoredCompaction; covered: number }>> {
  const result = new Map<
    string,
    Array<{ compaction: StoredCompaction; covered: number }>
  >();
  for (const compaction of compactions) {
    const path = [...pathTo(compaction.toMessageId, byId)];
    const start = path.indexOf(compaction.fromMessageId);
    const covered = start === -1 ? path.length : start + 1;
    const list = result.get(compaction.toMessageId) ?? [];
    list.push({ compaction, covered });
    result.set(compaction.toMessageId, list);
  }
  return result;
}
