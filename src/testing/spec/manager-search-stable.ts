import type { ManagerSuite } from "../manager-suite.js";
import {
  matchCount,
  STABLE_DEEPEST,
  STABLE_LIMITS,
  STABLE_QUERIES,
  stableRankingTexts,
} from "./search-stable.js";

/**
 * Stable rankings across sessions (docs/behavior/search.md#ranking-limits-and-results): the first
 * k results of `manager.search()` are the same whatever its `limit` (k ≤ limit), by words alone
 * and through the recall ranking (`mode: "text"`).
 */
export function managerSearchStableSpec(suite: ManagerSuite): void {
  const { expect } = suite;
  suite.describe("search and tools", () => {
    suite.it(
      "ranks the same across sessions whatever the limit: each search's results are the first of any larger one's",
      async (store) => {
        const manager = store.manager();
        const texts: string[] = [];
        for (const [name, seed] of [
          ["kiwis", 45],
          ["bananas", 46],
        ] as const) {
          const { id } = await manager.create(name);
          const written = stableRankingTexts(160, seed);
          texts.push(...written);
          await manager.appendAll(
            id,
            written.map((text, index) => ({
              id: `${name}-${index}`,
              role: index % 2 === 0 ? "user" : "assistant",
              parts: [{ type: "text" as const, text }],
            })),
          );
        }
        for (const query of STABLE_QUERIES)
          for (const options of [
            { match: "any" as const },
            { match: "all" as const },
            { mode: "text" as const },
          ]) {
            const search = async (limit: number) =>
              (await manager.search(query, { ...options, limit })).map(
                (hit) => `${hit.sessionId ?? ""}/${hit.id}`,
              );
            const label = `${query} ${JSON.stringify(options)}`;
            const deepest = await search(STABLE_DEEPEST);
            expect({ label, results: deepest.length }).toEqual({
              label,
              results: Math.min(
                matchCount(texts, query, options.match ?? "any"),
                STABLE_DEEPEST,
              ),
            });
            for (const limit of STABLE_LIMITS)
              expect({ label, limit, ids: await search(limit) }).toEqual({
                label,
                limit,
                ids: deepest.slice(0, limit),
              });
          }
      },
    );
  });
}
