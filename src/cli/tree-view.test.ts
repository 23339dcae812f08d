import { describe, expect, it } from "vitest";
import { renderTree, type TreeViewNode } from "./tree-view.js";

const node = (
  id: string,
  parentId: string | null,
  text = id,
): TreeViewNode => ({
  id,
  parentId,
  role: "user",
  text,
});

describe("renderTree", () => {
  it("puts several roots side by side and nests forks under forks", () => {
    const nodes = [
      node("r1", null),
      node("a", "r1"),
      node("b", "r1"),
      node("b1", "b"),
      node("b2", "b"),
      node("r2", null),
    ];
    expect(renderTree(nodes, { activeLeafId: "b2" })).toBe(
      [
        "├─● r1 user: r1",
        "│ ├─○ a user: a",
        "│ └─● b user: b",
        "│   ├─○ b1 user: b1",
        "│   └─● b2 user: b2  ◀ active",
        "└─○ r2 user: r2",
      ].join("\n"),
    );
  });

  it("cuts long text to one line of the given width", () => {
    const text = "a line\nwith   breaks and much more text than fits";
    expect(
      renderTree([node("m", null, text)], { activeLeafId: null, width: 20 }),
    ).toBe("○ m user: a line with breaks…");
  });

  it("draws a 20 000-message chain without deep recursion", () => {
    const nodes = Array.from({ length: 20_000 }, (_, index) =>
      node(`m${index}`, index === 0 ? null : `m${index - 1}`),
    );
    const lines = renderTree(nodes, { activeLeafId: "m19999" }).split("\n");
    expect(lines).toHaveLength(20_000);
    expect(lines.at(-1)).toBe("● m19999 user: m19999  ◀ active");
  });

  it("shows an overlay after the message it ends at, with the number it covers", () => {
    const nodes = [node("u1", null), node("a1", "u1"), node("u2", "a1")];
    const compactions = [
      {
        id: "c1",
        summary: "Greetings.",
        fromMessageId: "u1",
        toMessageId: "a1",
        createdAt: "2026-12-01T00:00:00.000Z",
      },
    ];
    expect(
      renderTree(nodes, { activeLeafId: "u2", compactions }).split("\n")[2],
    ).toBe("  ⤷ summary c1 covers u1 … a1 (2 messages): Greetings.");
  });
});
