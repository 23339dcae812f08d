// The block editor's live count (src/studio/app/block-tokens.ts) is the count the store holds a
// save to: equal to `estimateStringTokens` on any text, whitespace of every kind included.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockTokens } from "../../src/studio/app/block-tokens.js";
import { estimateStringTokens } from "../../src/utils/index.js";

describe("blockTokens", () => {
  it("counts as estimateStringTokens does", () => {
    const text = fc.string({
      unit: fc.constantFrom(
        "a",
        "é",
        "会",
        " ",
        "\n",
        "\t",
        "\u00a0",
        "\u2003",
        "\u3000",
        "\ufeff",
        "😀",
        ".",
      ),
      maxLength: 200,
    });
    fc.assert(
      fc.property(
        text,
        (value) => blockTokens(value) === estimateStringTokens(value),
      ),
    );
    expect(blockTokens("")).toBe(0);
    expect(blockTokens("Likes trains")).toBe(
      estimateStringTokens("Likes trains"),
    );
  });
});
