/**
 * The tree as an SVG graph. Only the rows and columns in the scrolled viewport are drawn, so a
 * 5,000-message tree costs what a screenful costs. Arrow keys move a cursor (↑ parent, ↓ child,
 * ← → siblings), Enter opens the cursor's path; clicking a node or its label does the same.
 */
import { h, replace, svg } from "../dom.js";
import { formatDate, formatNumber } from "../format.js";
import { layoutTree, type PlacedNode } from "../tree-layout.js";
import type { TreeModel } from "../tree-model.js";

/** The narrowest column: a many-branch tree packs its columns this close. */
const MIN_COLUMN_WIDTH = 26;
/** The widest column: a few-branch tree spreads out so each node has room for its label. */
const MAX_COLUMN_WIDTH = 200;
const ROW_HEIGHT = 30;
const PADDING = 20;
const RADIUS = 7;
/** An estimate for 12 px text, to cut previews to the room beside a node. */
const LABEL_CHAR_WIDTH = 6.6;
/**
 * Active-path labels get at least this many characters, drawn over whatever is beside them (on a
 * halo), so the conversation's own line stays readable however many columns crowd it.
 */
const PATH_LABEL_CHARS = 32;
/** The width the graph assumes before it is in the document. */
const DEFAULT_VIEW_WIDTH = 1000;

/** What the graph needs from its page. */
export interface GraphOptions {
  model: TreeModel;
  /** Highlighted as the active path (the active leaf and its ancestors). */
  activeLeafId: string | null;
  /** Opens the conversation at this node. */
  open: (id: string) => void;
}

/** Builds the graph view; it draws itself once attached and on every scroll. */
export function graphView(options: GraphOptions): HTMLElement {
  const { model } = options;
  const layout = layoutTree(model);
  const onPath = new Set(model.pathTo(options.activeLeafId));
  const covered = new Set(model.compactions.flatMap((c) => model.coveredBy(c)));
  let cursor = options.activeLeafId ?? model.childrenOf(null)[0]?.id ?? null;

  // Spread the columns over the view when there are few, so labels have room beside each node.
  let columnWidth = MIN_COLUMN_WIDTH;
  const xOf = (node: PlacedNode) =>
    PADDING + node.column * columnWidth + columnWidth / 2;
  const height = layout.rows.length * ROW_HEIGHT + 2 * PADDING;
  const canvas = svg("svg", { class: "graph-canvas", "aria-hidden": "true" });
  const spacer = h("div", { class: "graph-spacer" }, canvas);
  const fitColumns = (viewWidth: number) => {
    const share = Math.floor(
      (viewWidth - 2 * PADDING - 240) / Math.max(1, layout.columns),
    );
    columnWidth = Math.max(MIN_COLUMN_WIDTH, Math.min(MAX_COLUMN_WIDTH, share));
    const width = layout.columns * columnWidth + 2 * PADDING + 240;
    spacer.style.width = `${width}px`;
    spacer.style.height = `${height}px`;
  };
  fitColumns(DEFAULT_VIEW_WIDTH);
  const detail = h("p", { class: "graph-detail", "aria-live": "polite" });
  const scroller = h(
    "div",
    {
      class: "graph-scroll",
      tabindex: 0,
      role: "application",
      "aria-label":
        "Conversation tree. Arrow keys move between messages, Enter opens the selected one.",
    },
    spacer,
  );

  const draw = () => {
    const left = scroller.scrollLeft;
    const top = scroller.scrollTop;
    const viewWidth = scroller.clientWidth || 800;
    const viewHeight = scroller.clientHeight || 600;
    canvas.setAttribute("width", String(viewWidth));
    canvas.setAttribute("height", String(viewHeight));
    canvas.setAttribute("viewBox", `${left} ${top} ${viewWidth} ${viewHeight}`);
    canvas.style.transform = `translate(${left}px, ${top}px)`;
    const firstRow = Math.max(0, Math.floor((top - PADDING) / ROW_HEIGHT) - 1);
    const lastRow = Math.min(
      layout.rows.length - 1,
      Math.ceil((top + viewHeight - PADDING) / ROW_HEIGHT) + 1,
    );
    const minX = left - columnWidth;
    const maxX = left + viewWidth + columnWidth;
    const edges: SVGElement[] = [];
    // Nodes over labels: a label opens its node on a click, and a node its own where a label
    // runs under it. The active path's labels go over the others.
    const nodes: SVGElement[] = [];
    const labels: Array<SVGElement | null> = [];
    const pathLabels: Array<SVGElement | null> = [];
    for (let row = firstRow; row <= lastRow; row++) {
      const placed = layout.rows[row] ?? [];
      placed.forEach((node, index) => {
        const x = xOf(node);
        const parent =
          node.parentId === null ? undefined : layout.byId.get(node.parentId);
        if (
          parent &&
          Math.max(x, xOf(parent)) >= minX &&
          Math.min(x, xOf(parent)) <= maxX
        )
          edges.push(edgeBetween(xOf, parent, node, onPath.has(node.id)));
        // The preview fits in the free columns to the right of the node (all of them for the last).
        const next = placed[index + 1];
        const room = next
          ? (next.column - node.column) * columnWidth - 2 * RADIUS - 6
          : 480;
        const fits = Math.floor(room / LABEL_CHAR_WIDTH);
        const onActivePath = onPath.has(node.id);
        const characters = onActivePath
          ? Math.max(fits, PATH_LABEL_CHARS)
          : fits;
        const reach = onActivePath ? characters * LABEL_CHAR_WIDTH : room;
        if (x >= minX && x <= maxX) nodes.push(nodeShape(node));
        if (x + reach + RADIUS > minX && x <= maxX)
          (onActivePath ? pathLabels : labels).push(label(node, characters));
      });
    }
    replace(canvas, edges, labels, pathLabels, nodes);
  };

  const label = (node: PlacedNode, characters: number) => {
    const preview = model.nodes.get(node.id)?.preview ?? "";
    if (characters < 4 || !preview) return null;
    const text =
      preview.length > characters
        ? preview.slice(0, characters - 1) + "…"
        : preview;
    return svg(
      "text",
      {
        x: xOf(node) + RADIUS + 6,
        y: yOf(node) + 4,
        class: onPath.has(node.id) ? "label on-path" : "label",
        "data-for": node.id,
      },
      text,
    );
  };

  const nodeShape = (node: PlacedNode) => {
    const classes = ["node", "role-" + node.role.replace(/[^a-z]/gi, "")];
    if (onPath.has(node.id)) classes.push("on-path");
    if (node.id === options.activeLeafId) classes.push("active-leaf");
    if (covered.has(node.id)) classes.push("covered");
    if (node.id === cursor) classes.push("cursor");
    const preview = model.nodes.get(node.id)?.preview ?? "";
    return svg(
      "g",
      { class: classes.join(" "), "data-id": node.id },
      // The keyboard cursor is a dashed ring around the node, unlike the active leaf's mark.
      node.id === cursor
        ? svg("circle", {
            class: "cursor-ring",
            cx: xOf(node),
            cy: yOf(node),
            r: RADIUS + 6,
          })
        : null,
      svg("circle", { cx: xOf(node), cy: yOf(node), r: RADIUS }),
      svg("title", {}, `${node.role}: ${preview}`),
    );
  };

  const describe = (id: string | null) => {
    const node = id === null ? undefined : model.nodes.get(id);
    replace(
      detail,
      node
        ? [
            h("strong", {}, node.role),
            ` · ${formatDate(node.createdAt)} · `,
            node.preview || "(no text)",
          ]
        : `${count(model.nodes.size, "message")}, ${count(model.branchPointCount(), "branch point")}. Click a node to open its path.`,
    );
  };

  const moveCursor = (id: string | null | undefined) => {
    if (!id) return;
    cursor = id;
    const node = layout.byId.get(id)!;
    const x = xOf(node);
    const y = yOf(node);
    if (
      x < scroller.scrollLeft + PADDING ||
      x > scroller.scrollLeft + scroller.clientWidth - PADDING
    )
      scroller.scrollLeft = x - scroller.clientWidth / 2;
    if (
      y < scroller.scrollTop + PADDING ||
      y > scroller.scrollTop + scroller.clientHeight - PADDING
    )
      scroller.scrollTop = y - scroller.clientHeight / 2;
    describe(id);
    draw();
  };

  let frame = 0;
  scroller.addEventListener("scroll", () => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(draw);
  });
  // A node's label opens it as its circle does: the label is the bigger target.
  const idAt = (event: Event) => {
    const target = (event.target as Element).closest("[data-id], [data-for]");
    return (
      target?.getAttribute("data-id") ??
      target?.getAttribute("data-for") ??
      null
    );
  };
  canvas.addEventListener("click", (event) => {
    const id = idAt(event);
    if (id) options.open(id);
  });
  canvas.addEventListener("mouseover", (event) => {
    const id = idAt(event);
    if (id) describe(id);
  });
  scroller.addEventListener("keydown", (event) => {
    if (cursor === null) return;
    const node = model.nodes.get(cursor);
    const siblings = model.siblingsOf(cursor);
    const index = siblings.findIndex((sibling) => sibling.id === cursor);
    const moves: Record<string, () => string | null | undefined> = {
      ArrowUp: () => node?.parentId,
      ArrowDown: () => {
        const kids = model.childrenOf(cursor);
        return (kids.find((kid) => onPath.has(kid.id)) ?? kids[0])?.id;
      },
      ArrowLeft: () => siblings[index - 1]?.id,
      ArrowRight: () => siblings[index + 1]?.id,
    };
    if (event.key === "Enter") {
      event.preventDefault();
      options.open(cursor);
    } else if (moves[event.key]) {
      event.preventDefault();
      moveCursor(moves[event.key]!());
    }
  });

  // Draw once the element is in the document and has a size; center the active leaf.
  requestAnimationFrame(() => {
    fitColumns(scroller.clientWidth || DEFAULT_VIEW_WIDTH);
    const start = cursor === null ? undefined : layout.byId.get(cursor);
    if (start) {
      scroller.scrollTop = yOf(start) - scroller.clientHeight / 2;
      scroller.scrollLeft = xOf(start) - scroller.clientWidth / 2;
    }
    describe(null);
    draw();
  });
  return h("section", { class: "graph-view" }, scroller, detail);
}

// --- Internal helpers ---

function count(value: number, noun: string): string {
  return `${formatNumber(value)} ${noun}${value === 1 ? "" : "s"}`;
}

function yOf(node: PlacedNode): number {
  return PADDING + node.row * ROW_HEIGHT + ROW_HEIGHT / 2;
}

function edgeBetween(
  xOf: (node: PlacedNode) => number,
  parent: PlacedNode,
  child: PlacedNode,
  highlighted: boolean,
): SVGElement {
  const x1 = xOf(parent);
  const y1 = yOf(parent);
  const x2 = xOf(child);
  const y2 = yOf(child);
  const d =
    x1 === x2
      ? `M${x1} ${y1}V${y2}`
      : `M${x1} ${y1}V${y1 + ROW_HEIGHT / 2}H${x2}V${y2}`;
  return svg("path", { class: highlighted ? "edge on-path" : "edge", d });
}
