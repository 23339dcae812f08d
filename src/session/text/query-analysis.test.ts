import { describe, expect, it } from "vitest";
import {
  analyzeQuery,
  fts5Expressions,
  MAX_QUERY_TERMS,
  MAX_RANKED_FORMS,
  MAX_RANKED_TERMS,
  rarestTerms,
} from "./query-analysis.js";
import { normalizeTextSearchOptions } from "./search-options.js";

const texts = (query: string, match?: "any" | "all") =>
  analyzeQuery(query, match)?.terms.map((term) => term.text) ?? null;

describe("analyzeQuery", () => {
  it("drops question scaffolding and stop words of the query's language", () => {
    expect(texts("When did Caroline go to the support group?")).toEqual([
      "Caroline",
      "go",
      "support",
      "group?",
    ]);
    expect(texts("Wann war Caroline in der Selbsthilfegruppe?")).toEqual([
      "Caroline",
      "Selbsthilfegruppe?",
    ]);
    expect(texts("¿Dónde está la estación de tren?")).toEqual([
      "estación",
      "tren?",
    ]);
  });

  it("drops a word only as a stop word of the language the query reads as", () => {
    // "die" and "war" are German stop words, English content words.
    expect(texts("did the plant die in the war")).toEqual([
      "plant",
      "die",
      "war",
    ]);
  });

  it("keeps numbers and capitalised words inside a sentence", () => {
    expect(texts("what happened in 2023 to order 66")).toEqual([
      "happened",
      "2023",
      "order",
      "66",
    ]);
    expect(texts("who did Will call about the US visa")).toEqual([
      "Will",
      "call",
      "US",
      "visa",
    ]);
    // A sentence's first word and I are capitalised anyway.
    expect(texts("The plan. Will I go?")).toEqual(["plan.", "go?"]);
  });

  it("keeps every term when all are stop words, and all terms as written under match: all", () => {
    expect(texts("to be or not")).toEqual(["to", "be", "or", "not"]);
    expect(texts("When did Caroline go?", "all")).toEqual([
      "When",
      "did",
      "Caroline",
      "go?",
    ]);
  });

  it("widens an irregular verb to its forms, and caps and dedupes terms", () => {
    expect(analyzeQuery("went")?.terms[0]?.forms).toEqual([
      "went",
      "go",
      "goes",
      "going",
      "gone",
    ]);
    expect(analyzeQuery("went", "all")?.terms[0]?.forms).toEqual(["went"]);
    expect(texts("kiwi KIWI kiwi")).toEqual(["kiwi"]);
    const many = Array.from({ length: 30 }, (_, at) => `w${at}x`).join(" ");
    expect(texts(many)).toHaveLength(MAX_QUERY_TERMS);
    expect(analyzeQuery("!!! ---")).toBeNull();
  });

  it("ranks the rarest terms, in the query's order, whatever their place in it", () => {
    const analyzed = analyzeQuery(
      "I was going through our previous conversation about atmospheric correction methods, and I wanted to confirm: which one is implemented in the SIAC_GEE tool, MAJA or Sen2Cor",
    )!;
    const words = analyzed.terms.map((term) => term.text);
    expect(words.length).toBeGreaterThan(MAX_RANKED_TERMS);
    // The late words are the rare ones here.
    const counts = words.map((word) =>
      word === "SIAC_GEE" ? 2 : word === "Sen2Cor" ? 5 : 1_000,
    );
    const { analyzed: ranked, kept } = rarestTerms(analyzed, counts);
    expect(ranked.terms).toHaveLength(MAX_RANKED_TERMS);
    expect(ranked.terms.map((term) => term.text)).toContain("SIAC_GEE");
    expect(ranked.terms.map((term) => term.text)).toContain("Sen2Cor");
    expect(kept).toEqual([...kept].sort((a, b) => a - b));
    expect(ranked.terms.map((term) => term.text)).toEqual(
      kept.map((at) => words[at]),
    );
    // Without counts: the first terms; under "all": every term.
    expect(rarestTerms(analyzed).kept).toEqual(
      Array.from({ length: MAX_RANKED_TERMS }, (_, at) => at),
    );
    const all = analyzeQuery("a b c d e f g h i j", "all")!;
    expect(rarestTerms(all).analyzed.terms).toHaveLength(10);
  });

  it("keeps at most MAX_RANKED_FORMS forms over the ranked terms", () => {
    const analyzed = analyzeQuery("went ran saw ate took gave came")!;
    const { analyzed: ranked } = rarestTerms(analyzed);
    // Forms are given in order while the budget lasts; a term past it keeps only its own form.
    let used = 0;
    for (const term of ranked.terms) {
      if (used >= MAX_RANKED_FORMS) expect(term.forms).toEqual([term.text]);
      used += term.forms.length;
    }
    expect(ranked.terms.at(-1)!.forms).toEqual([ranked.terms.at(-1)!.text]);
    expect(ranked.terms.every((term) => term.forms[0] === term.text)).toBe(
      true,
    );
  });

  it("builds FTS5 expressions with every form once in each", () => {
    const analyzed = analyzeQuery('met "Anna" 金曜日')!;
    expect(fts5Expressions(analyzed)).toEqual({
      all: '("met" OR "meet") AND """Anna""" AND " 金  曜  日 "',
      any: '"met" OR "meet" OR """Anna""" OR " 金  曜  日 "',
    });
    // "meets" and "meeting" are "meet" to Porter: one phrase, so bm25() counts the word once.
    expect(analyzed.terms[0]!.forms).toContain("meeting");
    expect(fts5Expressions(analyzeQuery("kiwi")!)).toEqual({
      all: '"kiwi"',
      any: null,
    });
  });
});

describe("normalizeTextSearchOptions", () => {
  it("turns dates and instants into ISO-8601 UTC, reading a zoneless time as UTC", () => {
    expect(
      normalizeTextSearchOptions({
        match: "all",
        since: "2026-05-07",
        until: new Date(Date.UTC(2026, 4, 8, 12)),
      }),
    ).toEqual({
      match: "all",
      since: "2026-05-07T00:00:00.000Z",
      until: "2026-05-08T12:00:00.000Z",
    });
    expect(normalizeTextSearchOptions({ since: "2026-05-07T10:30" })).toEqual({
      since: "2026-05-07T10:30:00.000Z",
    });
    expect(
      normalizeTextSearchOptions({ since: "2026-05-07T10:30:00+02:00" }),
    ).toEqual({ since: "2026-05-07T08:30:00.000Z" });
    expect(normalizeTextSearchOptions(undefined)).toEqual({});
  });

  it("rejects anything else with INVALID_ARGUMENT", () => {
    for (const bad of [
      { since: "last week" },
      { until: "2026-02-30T25:00" },
      { since: new Date(Number.NaN) },
      { since: Number(12) },
      { match: "most" as "all" },
    ]) {
      // @ts-expect-error -- a number is not a time, on purpose
      expect(() => normalizeTextSearchOptions(bad)).toThrow(
        expect.objectContaining({ code: "INVALID_ARGUMENT" }),
      );
    }
  });
});
