import type { ManagerSuite } from "../manager-suite.js";

/**
 * Evidence that spans turns, across sessions (docs/search.md#evidence-across-sessions): the
 * ranked search of `manager.search()` (any `mode`) gives a session's opening turn that matches a
 * share of its session's best matches. The plain search (no `mode`) ranks turns alone.
 */
export function managerSearchEvidenceSpec(suite: ManagerSuite): void {
  const { expect } = suite;
  suite.describe("search and tools", () => {
    suite.it(
      "ranked search across sessions: a session's opening turn takes a share of its session's matches",
      async (store) => {
        const manager = store.manager();
        const write = async (name: string, texts: readonly string[]) => {
          const { id } = await manager.create(name);
          await manager.appendAll(
            id,
            texts.map((text, index) => ({
              id: `${name}-${index}`,
              role: index % 2 === 0 ? "user" : "assistant",
              parts: [{ type: "text" as const, text }],
            })),
          );
        };
        // "maui" opens with the fact and then talks about the question's words; "notes" holds
        // the same text as that opening in a later turn, written after it (ties go to the newest).
        await write("maui", [
          "Planning a Maui trip: the resort costs $300 a night",
          "Maui hiking trails: Maui has great hiking trails",
          "More Maui hiking trails please",
        ]);
        await write("notes", [
          "Groceries for the week",
          "Planning a Maui trip: the resort costs $300 a night",
        ]);
        const query = "maui hiking trails";
        const order = (hits: Array<{ id: string }>) =>
          hits.map((hit) => hit.id);
        // Turns alone (the plain search): the newer copy ranks above the opening.
        const plain = order(await manager.search(query, { limit: 10 }));
        expect(plain.indexOf("notes-1")).toBeGreaterThanOrEqual(0);
        expect(plain.indexOf("maui-0")).toBeGreaterThan(
          plain.indexOf("notes-1"),
        );
        // Ranked: the opening of the session that matches takes a share of its matches.
        const ranked = order(
          await manager.search(query, { mode: "text", limit: 10 }),
        );
        expect(ranked).toHaveLength(4);
        expect(ranked.indexOf("notes-1")).toBeGreaterThan(
          ranked.indexOf("maui-0"),
        );
        // The same order whatever the limit (the stable-ranking property).
        for (const limit of [1, 2, 3, 4])
          expect(
            order(await manager.search(query, { mode: "text", limit })),
          ).toEqual(ranked.slice(0, limit));
      },
    );
  });
}
