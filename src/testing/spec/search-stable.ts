import { build, conversation, ids } from "../fixtures.js";
import { prng } from "../helpers.js";
import { eachLayer, type Suite } from "../suite.js";

/**
 * Stable rankings (docs/behavior/search.md#ranking-limits-and-results): for a given query and
 * store, the first k results of a search are the same, in the same order, whatever its `limit`
 * (k ≤ limit). Part of the search cases; every case needs `search`.
 */
export function searchStableSpec(suite: Suite): void {
  const { expect } = suite;
  suite.describe("search", () => {
    eachLayer(suite, (suite) => {
      suite.it(
        "ranks the same whatever the limit: each search's results are the first of any larger one's",
        async ({ open, layer }) => {
          const session = open();
          const texts = stableRankingTexts();
          await build(session, conversation(texts));
          // Common words (kiwi, banana) match more messages than the rank window scores; the rare
          // one (zebra) makes a rare-term arm; `match: "all"` and the recall ranking (a `mode`,
          // session layer) take other paths.
          const runs: Array<{
            query: string;
            options: Record<string, unknown>;
            matches: number;
          }> = [];
          for (const query of STABLE_QUERIES)
            for (const match of ["any", "all"] as const)
              runs.push({
                query,
                options: { match },
                matches: matchCount(texts, query, match),
              });
          if (layer === "session")
            runs.push({
              query: "kiwi banana",
              options: { mode: "text" },
              matches: matchCount(texts, "kiwi banana", "any"),
            });
          for (const { query, options, matches } of runs) {
            const search = async (limit: number) =>
              ids(
                await (
                  session.search as (
                    query: string,
                    options: Record<string, unknown>,
                  ) => Promise<Array<{ id: string }>>
                )(query, { ...options, limit }),
              );
            const deepest = await search(STABLE_DEEPEST);
            const label = `${query} ${JSON.stringify(options)}`;
            // Past the scored window the older matches follow: a deep enough limit returns all.
            expect({ label, results: deepest.length }).toEqual({
              label,
              results: Math.min(matches, STABLE_DEEPEST),
            });
            expect(new Set(deepest).size).toBe(deepest.length);
            for (const limit of STABLE_LIMITS)
              expect({ label, limit, ids: await search(limit) }).toEqual({
                label,
                limit,
                ids: deepest.slice(0, limit),
              });
          }
        },
        { requires: { search: true } },
      );
    });
  });
}

/** Queries of the stable-ranking case: common, mixed and rare words. */
export const STABLE_QUERIES = [
  "kiwi",
  "kiwi banana",
  "cherry zebra kiwi",
  "banana date",
] as const;

/** The limits each query runs with; each ranking must be the start of the deepest one's. */
export const STABLE_LIMITS = [1, 2, 5, 10, 20, 50, 100, 250] as const;

/** The deepest limit asked for: past the rank window (200) and past every match. */
export const STABLE_DEEPEST = 400;

/**
 * 320 messages of a fixed pseudo-random mix: "kiwi" in about 80% of them, "banana" in half,
 * "cherry" in a third, "date" in a sixth, "zebra" in one of fifty, some words repeated so that
 * scores differ, and filler words of varied length.
 */
export function stableRankingTexts(count = 320, seed = 45): string[] {
  const random = prng(seed);
  const fillers = ["note", "plan", "item", "value", "topic", "river", "lamp"];
  const texts: string[] = [];
  for (let index = 0; index < count; index++) {
    const words: string[] = [];
    const add = (word: string, share: number) => {
      if (random() >= share) return;
      words.push(word);
      if (random() < 0.3) words.push(word);
    };
    add("kiwi", 0.8);
    add("banana", 0.5);
    add("cherry", 0.33);
    add("date", 0.16);
    add("zebra", 0.02);
    const padding = 1 + Math.floor(random() * 8);
    for (let at = 0; at < padding; at++)
      words.push(fillers[Math.floor(random() * fillers.length)]!);
    texts.push(`${words.join(" ")} ${index}`);
  }
  return texts;
}

/** Messages holding any (or every) word of `query`, as whole words. */
export function matchCount(
  texts: readonly string[],
  query: string,
  match: "any" | "all",
): number {
  const terms = query.split(" ");
  return texts.filter((text) => {
    const words = new Set(text.split(" "));
    return match === "any"
      ? terms.some((term) => words.has(term))
      : terms.every((term) => words.has(term));
  }).length;
}
