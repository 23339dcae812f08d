/** A tiny element builder: the studio's whole "framework". */

/** What `h()` accepts as a child: nodes, text, and nothing (skipped). */
export type Child = Node | string | number | null | undefined | false | Child[];

/** Attributes (strings, numbers, booleans) and `on…` event handlers. */
export type Props = Record<
  string,
  string | number | boolean | null | undefined | ((event: never) => void)
>;

const SVG_NS = "http://www.w3.org/2000/svg";

/** Creates an HTML element with attributes, listeners and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  apply(element, props);
  append(element, children);
  return element;
}

/** Creates an SVG element with attributes and children. */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG_NS, tag);
  apply(element, props);
  append(element, children);
  return element;
}

/** Replaces every child of `parent`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** Appends children, flattening arrays and skipping empty values. */
export function append(parent: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else
      parent.append(
        child instanceof Node ? child : document.createTextNode(String(child)),
      );
  }
}

/** A text with every occurrence of the query's words wrapped in `<mark>`. */
export function highlighted(text: string, query: string): Node[] {
  const words = query
    .split(/\s+/)
    .map((word) => word.replace(/^["']+|["']+$/g, ""))
    .filter((word) => word.length > 0)
    .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (words.length === 0) return [document.createTextNode(text)];
  const pattern = new RegExp(`(${words.join("|")})`, "giu");
  return text
    .split(pattern)
    .map((piece, index) =>
      index % 2 === 1 ? h("mark", {}, piece) : document.createTextNode(piece),
    );
}

// --- Internal helpers ---

function apply(element: Element, props: Props): void {
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") {
      element.addEventListener(
        name.slice(2).toLowerCase(),
        value as EventListener,
      );
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
}
