import { describe, expect, it } from "vitest";
import { characterCount, oneLine, table } from "./text.js";

/** Half of a surrogate pair without its other half: what a terminal prints as U+FFFD. */
const LONE_SURROGATE =
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// Each of these is one character on screen but several UTF-16 units.
const FAMILY = "👨‍👩‍👧‍👦"; // four emoji joined by ZWJ: 11 units
const CODER = "👩🏽‍💻"; // emoji, skin tone, ZWJ, emoji: 7 units
const FLAG = "🇫🇷"; // two regional indicators
const ACCENTED = "e\u0301"; // e and a combining acute accent

describe("oneLine", () => {
  it("never cuts inside an emoji, a ZWJ sequence, a flag or a combining mark", () => {
    for (const character of [FAMILY, CODER, FLAG, ACCENTED, "😀"]) {
      const text = `abc${character}${character}def`;
      for (let width = 1; width <= 9; width++) {
        const line = oneLine(text, width);
        expect(line, `${character} at width ${width}`).not.toMatch(
          LONE_SURROGATE,
        );
        // What is kept is whole characters of the original, then the ellipsis.
        const kept = line.endsWith("…") ? line.slice(0, -1) : line;
        expect(text.startsWith(kept)).toBe(true);
        expect(characterCount(line)).toBeLessThanOrEqual(width);
        const cutAfter = characterCount(kept);
        expect(
          [...new Intl.Segmenter().segment(text)]
            .map((s) => s.segment)
            .slice(0, cutAfter)
            .join(""),
        ).toBe(kept);
      }
    }
  });

  it("counts characters, not UTF-16 units, against the width", () => {
    expect(oneLine(`${FAMILY}${FAMILY}${FAMILY}`, 3)).toBe(
      `${FAMILY}${FAMILY}${FAMILY}`,
    );
    expect(oneLine(`${FAMILY}${FAMILY}${FAMILY}x`, 3)).toBe(
      `${FAMILY}${FAMILY}…`,
    );
    expect(oneLine("ab👩‍💻cd", 4)).toBe("ab👩‍💻…");
  });

  it("folds whitespace and leaves short text alone", () => {
    expect(oneLine("  one\n\ttwo  ", 20)).toBe("one two");
    expect(oneLine("one two three", 8)).toBe("one two…");
  });
});

describe("table", () => {
  it("pads columns by characters, so a row with emoji stays aligned", () => {
    expect(
      table(
        ["NAME", "N"],
        [
          [`${FAMILY} trip`, "1"],
          ["plain", "2"],
        ],
      ).split("\n"),
    ).toEqual([`NAME    N`, `${FAMILY} trip  1`, `plain   2`]);
  });
});
