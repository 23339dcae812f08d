import { describe, expect, it } from "vitest";
import {
  irregularVerbLines,
  verbForms,
  verbStemKey,
} from "./irregular-verbs.js";
import { porterStem } from "./porter-stemmer.js";

describe("the irregular verb table", () => {
  it("marks exactly the forms the Porter stemmer makes one token with another form of their verb", () => {
    const lines = irregularVerbLines();
    expect(lines.length).toBeGreaterThan(50);
    for (const forms of lines)
      for (const a of forms)
        for (const b of forms) {
          // Only forms whose first listing is this line carry its marks.
          if (verbForms(a)[0] !== a || !verbForms(a).includes(b)) continue;
          if (
            !forms.includes(verbStemKey(a)) ||
            !forms.includes(verbStemKey(b))
          )
            continue;
          expect(
            verbStemKey(a) === verbStemKey(b),
            `${a} / ${b}: Porter ${porterStem(a)} / ${porterStem(b)}`,
          ).toBe(porterStem(a) === porterStem(b));
        }
  });

  it("keys a regular inflection by its base and an irregular form by itself", () => {
    expect(verbStemKey("buying")).toBe("buy");
    expect(verbStemKey("buys")).toBe("buy");
    expect(verbStemKey("bought")).toBe("bought");
    expect(verbStemKey("goes")).toBe("goes"); // Porter: "goe", not "go"
    expect(verbStemKey("kiwi")).toBe("kiwi");
  });
});
