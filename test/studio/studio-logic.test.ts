// The studio's pure logic, without a browser: the line diff, the tree model, the grid layout and
// the inline marks and the Markdown of message text.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffLines } from "../../src/studio/app/diff.js";
import {
  inlineRuns,
  plainText,
  type TextRun,
} from "../../src/studio/app/format.js";
import { parseInline, parseMarkdown } from "../../src/studio/app/markdown.js";
import { layoutTree } from "../../src/studio/app/tree-layout.js";
import { TreeModel } from "../../src/studio/app/tree-model.js";

const node = (id: string, parentId: string | null) => ({
  id,
  parentId,
  role: "user",
  createdAt: "2026-12-01T00:00:00.000Z",
  preview: id,
});

describe("diffLines", () => {
  it("marks the changed line of a block write", () => {
    expect(diffLines("a\nb\nc", "a\nB\nc")).toEqual([
      { kind: "same", text: "a" },
      { kind: "remove", text: "b" },
      { kind: "add", text: "B" },
      { kind: "same", text: "c" },
    ]);
  });

  it("rebuilds both texts from any diff, keeping every common line of equal texts", () => {
    const text = fc
      .array(fc.constantFrom("a", "b", "c", "d", ""), { maxLength: 12 })
      .map((lines) => lines.join("\n"));
    fc.assert(
      fc.property(text, text, (before, after) => {
        const lines = diffLines(before, after);
        const side = (kind: "add" | "remove") =>
          lines
            .filter((line) => line.kind !== kind)
            .map((line) => line.text)
            .join("\n");
        expect(side("add")).toBe(before);
        expect(side("remove")).toBe(after);
        if (before === after)
          expect(lines.every((line) => line.kind === "same")).toBe(true);
      }),
    );
  });
});

describe("TreeModel and layoutTree", () => {
  // r → a → b → c (active)      r → a → b2      r → x
  const model = new TreeModel({
    nodes: [
      node("r", null),
      node("a", "r"),
      node("b", "a"),
      node("b2", "a"),
      node("x", "r"),
      node("c", "b"),
    ],
    activeLeafId: "c",
    compactions: [
      {
        id: "o1",
        summary: "s",
        fromMessageId: "a",
        toMessageId: "b",
        createdAt: "2026-12-01T00:00:00.000Z",
      },
    ],
  });

  it("answers paths, siblings, leaves and overlay ranges", () => {
    expect(model.pathTo("c")).toEqual(["r", "a", "b", "c"]);
    expect(model.siblingsOf("b2").map((n) => n.id)).toEqual(["b", "b2"]);
    expect(model.latestLeafUnder("r")).toBe("c");
    expect(model.latestLeafUnder("b2")).toBe("b2");
    expect(model.leafFor("a")).toBe("c");
    expect(model.leafFor("x")).toBe("x");
    expect(model.coveredBy(model.compactions[0]!)).toEqual(["a", "b"]);
    expect(model.branchPointCount()).toBe(2);
  });

  it("places each node one row below its parent, a parent over its first child, one column per leaf", () => {
    const layout = layoutTree(model);
    expect(layout.columns).toBe(3);
    expect(layout.byId.size).toBe(6);
    for (const placed of layout.byId.values()) {
      const parent =
        placed.parentId === null ? undefined : layout.byId.get(placed.parentId);
      if (parent) expect(placed.row).toBe(parent.row + 1);
      const first = model.childrenOf(placed.id)[0];
      if (first) expect(layout.byId.get(first.id)!.column).toBe(placed.column);
    }
    const cells = [...layout.byId.values()].map((p) => `${p.column}:${p.row}`);
    expect(new Set(cells).size).toBe(cells.length);
  });

  it("lays out a 5,000-message chain without recursion", () => {
    const nodes = Array.from({ length: 5000 }, (_, index) =>
      node(`m${index}`, index === 0 ? null : `m${index - 1}`),
    );
    const layout = layoutTree(
      new TreeModel({ nodes, activeLeafId: "m4999", compactions: [] }),
    );
    expect(layout.rows).toHaveLength(5000);
    expect(layout.columns).toBe(1);
  });
});

describe("plainText", () => {
  it("drops bold and code marks, keeps lone asterisks", () => {
    expect(plainText("1. **Jan 5** – run `npm test`, 2 * 3")).toBe(
      "1. Jan 5 – run npm test, 2 * 3",
    );
  });
});

describe("inlineRuns", () => {
  it("shows **strong** and `code` as marks and leaves other asterisks as written", () => {
    expect(
      inlineRuns("1. **Mon Jan 11** – run `npm test`, 2 * 3 ** 4"),
    ).toEqual([
      { kind: "text", text: "1. " },
      { kind: "strong", text: "Mon Jan 11" },
      { kind: "text", text: " – run " },
      { kind: "code", text: "npm test" },
      { kind: "text", text: ", 2 * 3 ** 4" },
    ]);
    expect(inlineRuns("a ** b ** c")).toEqual([
      { kind: "text", text: "a ** b ** c" },
    ]);
  });

  it("keeps every character: the runs with their marks put back are the text", () => {
    const restore = (runs: TextRun[]) =>
      runs
        .map((run) =>
          run.kind === "strong"
            ? `**${run.text}**`
            : run.kind === "code"
              ? `\`${run.text}\``
              : run.text,
        )
        .join("");
    const text = fc
      .array(fc.constantFrom("a", " ", "*", "**", "`", "\n", "b"), {
        maxLength: 20,
      })
      .map((pieces) => pieces.join(""));
    fc.assert(
      fc.property(text, (value) => {
        expect(restore(inlineRuns(value))).toBe(value);
      }),
    );
  });
});

describe("parseMarkdown", () => {
  it("reads headings, lists, fenced code, quotes and inline marks", () => {
    expect(
      parseMarkdown(
        "# Title\n\n1. one\n2. **two**\n\n```js\nlet a = `x`;\n```\n> quoted _text_",
      ),
    ).toEqual([
      {
        kind: "heading",
        level: 1,
        children: [{ kind: "text", text: "Title" }],
      },
      {
        kind: "list",
        ordered: true,
        start: 1,
        items: [
          [{ kind: "paragraph", children: [{ kind: "text", text: "one" }] }],
          [
            {
              kind: "paragraph",
              children: [
                { kind: "strong", children: [{ kind: "text", text: "two" }] },
              ],
            },
          ],
        ],
      },
      { kind: "code", language: "js", text: "let a = `x`;" },
      {
        kind: "quote",
        children: [
          {
            kind: "paragraph",
            children: [
              { kind: "text", text: "quoted " },
              { kind: "em", children: [{ kind: "text", text: "text" }] },
            ],
          },
        ],
      },
    ]);
  });

  it("keeps only http(s) and mailto links, and HTML as text", () => {
    expect(parseInline("[a](javascript:alert) [b](https://x.org)")).toEqual([
      { kind: "text", text: "a " },
      {
        kind: "link",
        href: "https://x.org",
        children: [{ kind: "text", text: "b" }],
      },
    ]);
    expect(parseInline("<b onclick=x>hi</b> snake_case a__b__c")).toEqual([
      { kind: "text", text: "<b onclick=x>hi</b> snake_case a__b__c" },
    ]);
  });

  it("never throws and never loses text on arbitrary input", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const blocks = parseMarkdown(text);
        expect(Array.isArray(blocks)).toBe(true);
      }),
    );
  });
});

describe("parseMarkdown as models write it", () => {
  it("reads GitHub tables with their alignment, after a paragraph too", () => {
    const [intro, table] = parseMarkdown(
      "The costs:\n| Item | Cost |\n|:--|--:|\n| Hotel | 300 |\n| Food \\| drinks | 120 |",
    );
    expect(intro).toMatchObject({ kind: "paragraph" });
    expect(table).toEqual({
      kind: "table",
      align: ["left", "right"],
      head: [
        [{ kind: "text", text: "Item" }],
        [{ kind: "text", text: "Cost" }],
      ],
      rows: [
        [[{ kind: "text", text: "Hotel" }], [{ kind: "text", text: "300" }]],
        [
          [{ kind: "text", text: "Food | drinks" }],
          [{ kind: "text", text: "120" }],
        ],
      ],
    });
  });

  it("reads task lists and lists nested two spaces deep", () => {
    const [list] = parseMarkdown(
      "- [x] book flights\n- [ ] pack\n  - shoes\n  - hat\n    1. red\n- call home",
    );
    expect(list).toMatchObject({ kind: "list", tasks: [true, false, null] });
    const items = (list as { items: unknown[][] }).items;
    expect(items).toHaveLength(3);
    expect(items[1]).toMatchObject([
      { kind: "paragraph", children: [{ kind: "text", text: "pack" }] },
      {
        kind: "list",
        items: [
          [{ kind: "paragraph" }],
          [{ kind: "paragraph" }, { kind: "list", ordered: true }],
        ],
      },
    ]);
  });

  it("keeps LaTeX as written, its backslashes and underscores too; prices stay text", () => {
    expect(
      parseInline(
        String.raw`area \(x^2\) and \[a_1 * b_2\] or $$\frac{a}{b}$$ and $e^{i\pi}$`,
      ),
    ).toEqual([
      { kind: "text", text: "area " },
      { kind: "math", text: String.raw`\(x^2\)` },
      { kind: "text", text: " and " },
      { kind: "math", text: String.raw`\[a_1 * b_2\]` },
      { kind: "text", text: " or " },
      { kind: "math", text: String.raw`$$\frac{a}{b}$$` },
      { kind: "text", text: " and " },
      { kind: "math", text: String.raw`$e^{i\pi}$` },
    ]);
    expect(parseInline("costs $5 and $10 today")).toEqual([
      { kind: "text", text: "costs $5 and $10 today" },
    ]);
  });
});
