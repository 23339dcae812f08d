import { build, conversation, ids } from "../fixtures.js";
import { eachLayer, type Suite } from "../suite.js";

/**
 * Search ranking (docs/behavior/search.md#ranking-limits-and-results): ties, relevance and the
 * rank window. Part of the search cases; every case needs `search`.
 */
export function searchRankingSpec(suite: Suite): void {
  const { expect } = suite;
  const search = { search: true } as const;
  suite.describe("search", () => {
    eachLayer(suite, (suite) => {
      suite.it(
        "ranks ties newest first",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation([
              "same words here",
              "same words here",
              "same words here",
            ]),
          );
          expect(ids(await session.search("words"))).toEqual([
            "m3",
            "m2",
            "m1",
          ]);
        },
        { requires: search },
      );

      suite.it(
        "ranks a message that repeats the term above one that mentions it once",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation(["kiwi kiwi kiwi banana", "kiwi banana cherry date"]),
          );
          expect(ids(await session.search("kiwi"))).toEqual(["m1", "m2"]);
        },
        { requires: { ...search, relevanceRanking: true } },
      );

      suite.it(
        "ranks the newest 200 matches whatever the limit; older ones follow them, newest first",
        async ({ open }) => {
          const session = open();
          // The oldest message is the best match, then 229 weaker ones: the window (200 newest)
          // leaves it out at any limit, so it is the last of all 230 results, not the first.
          const texts = ["kiwi kiwi kiwi kiwi"];
          for (let index = 0; index < 229; index++)
            texts.push(`kiwi banana cherry date number ${index}`);
          await build(session, conversation(texts));
          const [newestBest] = await session.search("kiwi", { limit: 1 });
          expect(Number(newestBest?.id.slice(1))).toBeGreaterThan(30);
          const ranked = await session.search("kiwi", { limit: 30 });
          expect(ranked[0]?.id).toBe(newestBest?.id);
          expect(ranked).toHaveLength(30);
          const all = await session.search("kiwi", { limit: 1000 });
          expect(all).toHaveLength(230);
          expect(ids(all.slice(0, 30))).toEqual(ids(ranked));
          // Past the window: the 30 oldest matches, newest first.
          expect(ids(all.slice(200))).toEqual(
            Array.from({ length: 30 }, (_, index) => `m${30 - index}`),
          );
        },
        { requires: { ...search, relevanceRanking: true } },
      );

      suite.it(
        "finds an old message holding a rare term when newer matches of a common term fill the rank window",
        async ({ open }) => {
          const session = open();
          // 229 newer messages hold "kiwi", more than the window of limit 5 (200): the oldest,
          // which holds only the rare "zebra", is still a candidate, and the best one.
          const texts = ["zebra stripes at dusk"];
          for (let index = 0; index < 229; index++)
            texts.push(`kiwi banana cherry number ${index}`);
          await build(session, conversation(texts));
          const hits = await session.search("zebra kiwi", { limit: 5 });
          expect(hits[0]?.id).toBe("m1");
          expect(hits).toHaveLength(5);
        },
        { requires: { ...search, relevanceRanking: true } },
      );
    });
  });
}
