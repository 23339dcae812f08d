import { describe, expect, it } from "vitest";
import { estimateStringTokens } from "../tokens/estimate-tokens.js";
import type { SearchHit } from "../embeddings/types.js";
import { renderSearchHits, shortTime } from "./search-render.js";

function hit(id: string, text: string): SearchHit {
  return {
    id,
    role: "user",
    content: text,
    createdAt: "2023-05-07T14:03:09.000Z",
    sessionId: "s1",
    sessionName: "diary",
    context: {
      before: [{ id: `${id}-b`, role: "assistant", text: "Before it" }],
      after: [
        {
          id: `${id}-a`,
          role: "assistant",
          createdAt: "2023-05-07T14:04:00.000Z",
          text: "After it",
        },
      ],
    },
  };
}

describe("renderSearchHits", () => {
  it("renders each hit with its session, time, role, snippet and neighbours", () => {
    expect(renderSearchHits([hit("m1", "We went to the lake")], "lake")).toBe(
      [
        '#1 · session "diary" · 2023-05-07 14:03 UTC · user · id m1',
        "    assistant: Before it",
        "  > We went to the «lake»",
        "    assistant (2023-05-07 14:04 UTC): After it",
      ].join("\n"),
    );
    expect(renderSearchHits([], "lake")).toBe(null);
  });

  it("stays within the token budget and says how many hits it left out", () => {
    const hits = Array.from({ length: 30 }, (_, i) =>
      hit(`m${i}`, `lake ${"many words here ".repeat(20)}`),
    );
    const out = renderSearchHits(hits, "lake", 500)!;
    expect(estimateStringTokens(out)).toBeLessThanOrEqual(520);
    const shown = out.split("\n\n");
    expect(shown.at(-1)).toMatch(/^\(\d+ more results not shown;/);
    expect(shown.length - 1 + Number(/\d+/.exec(shown.at(-1)!)![0])).toBe(30);
  });

  it("shows the first hit without neighbours when even it does not fit", () => {
    const out = renderSearchHits([hit("m1", "lake ".repeat(100))], "lake", 60)!;
    expect(out.includes("Before it")).toBe(false);
    expect(out.startsWith('#1 · session "diary"')).toBe(true);
  });

  it("writes times short, in UTC", () => {
    expect(shortTime("2023-05-07T14:03:09.000Z")).toBe("2023-05-07 14:03 UTC");
    expect(shortTime(undefined)).toBe("time unknown");
  });
});
