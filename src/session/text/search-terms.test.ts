import { describe, expect, it } from "vitest";
import {
  foldText,
  queryTerms,
  spaceCjk,
  toFts5Query,
  wordTokens,
} from "./search-terms.js";

describe("search terms", () => {
  it("splits a query on any whitespace and drops empties", () => {
    expect(queryTerms("  deploy\tfriday\n ")).toEqual(["deploy", "friday"]);
    expect(queryTerms(42)).toEqual([]);
  });

  it("quotes every term so FTS5 operators are ordinary words", () => {
    expect(toFts5Query('deploy OR "friday" NEAR*')).toBe(
      '"deploy" "OR" """friday""" "NEAR*"',
    );
  });

  it("turns a CJK term into a phrase of single characters", () => {
    expect(toFts5Query("金曜日")).toBe('" 金  曜  日 "');
    expect(spaceCjk("デプロイは金曜日")).toBe(
      " デ  プ  ロ  イ  は  金  曜  日 ",
    );
  });

  it("ignores terms with no letter or digit and answers null when nothing is left", () => {
    expect(toFts5Query("!!! ---")).toBeNull();
    expect(toFts5Query("!!! deploy")).toBe('"deploy"');
  });

  it("folds case, width and diacritics for the in-memory matcher, and stems with Porter", () => {
    expect(wordTokens(foldText("Déployées CAFÉ Ｆｒｉｄａｙ running"))).toEqual(
      ["deploye", "cafe", "fridai", "run"],
    );
  });
});
