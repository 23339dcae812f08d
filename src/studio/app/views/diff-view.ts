/** A diff rendered as lines marked + and −. */
import { diffLines } from "../diff.js";
import { h } from "../dom.js";

/** The line diff of two texts; "No changes" when they are equal. */
export function diffView(
  before: string,
  after: string,
  label: string,
): HTMLElement {
  const lines = diffLines(before, after);
  if (lines.every((line) => line.kind === "same"))
    return h("p", { class: "diff-empty muted" }, "No changes.");
  return h(
    "pre",
    { class: "diff", "aria-label": label },
    lines.map((line) =>
      h(
        "span",
        { class: `diff-line ${line.kind}` },
        line.kind === "add" ? "+ " : line.kind === "remove" ? "− " : "  ",
        line.text,
        "\n",
      ),
    ),
  );
}
