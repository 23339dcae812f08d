import type { ManagerSuite } from "../manager-suite.js";

/**
 * Evidence across sessions (docs/search.md#evidence-across-sessions): in the ranked search of
 * `manager.search()` (any `mode`), a session's opening turn (a message without a parent) takes a share of its session's
 * other matches and moves up among the candidates below the first three places, which never
 * move. Below them, a user turn's rank counts 1.5 times unless the query addresses the assistant
 * ("you", "remind"). The plain search (no `mode`) ranks turns alone.
 */
export function managerSearchEvidenceSpec(suite: ManagerSuite): void {
  const { expect } = suite;
  suite.describe("search and tools", () => {
    suite.it(
      "ranked search across sessions: a session's opening takes a share of its session's matches, below the first three places",
      async (store) => {
        const manager = store.manager();
        let minute = 0;
        const write = async (name: string, texts: readonly string[]) => {
          const { id } = await manager.create(name);
          const session = manager.getSession(id);
          let parentId: string | null = null;
          for (const [index, text] of texts.entries()) {
            const messageId = `${name}-${index}`;
            await session.importMessage(
              {
                id: messageId,
                role: index % 2 === 0 ? "user" : "assistant",
                parts: [{ type: "text", text }],
              },
              {
                parentId,
                createdAt: new Date(Date.UTC(2026, 0, 1, 9, minute++)),
              },
            );
            parentId = messageId;
          }
        };
        // "packing" opens without the query's words, and its earliest match is its weakest;
        // "maui" opens with the fact and then talks about the question's words; "notes" holds
        // the same text as that opening, written after it (ties go to the newest); "trails"
        // holds every word of the query once.
        await write("packing", [
          "Packing list for the week",
          "We could fly to Maui in the spring and stay for a whole week or two",
          "Maui",
        ]);
        await write("maui", [
          "Planning a Maui trip: the resort costs $300 a night",
          "Maui hiking trails: Maui has great hiking trails",
          "More Maui hiking trails please",
        ]);
        await write("trails", ["Hiking trails near Maui"]);
        await write("notes", [
          "Planning a Maui trip: the resort costs $300 a night",
        ]);
        const query = "maui hiking trails";
        const order = (hits: Array<{ id: string }>) =>
          hits.map((hit) => hit.id);
        // Turns alone (the plain search): the three turns holding every word, then the newer
        // copy of the opening above the opening, and "packing"'s long turn last.
        const plain = order(await manager.search(query, { limit: 10 }));
        expect(plain).toHaveLength(7);
        expect([...plain.slice(0, 3)].sort()).toEqual([
          "maui-1",
          "maui-2",
          "trails-0",
        ]);
        expect(plain.indexOf("maui-0")).toBeGreaterThan(
          plain.indexOf("notes-0"),
        );
        expect(plain.at(-1)).toBe("packing-1");
        // Ranked: the opening passes the copy, and its share (more than the first place's) does
        // not move it past the first three places; "packing"'s earliest match is not its
        // opening and keeps its place.
        const ranked = order(
          await manager.search(query, { mode: "text", limit: 10 }),
        );
        expect(ranked).toEqual([
          ...plain.slice(0, 3),
          "maui-0",
          ...plain.slice(3).filter((id) => id !== "maui-0"),
        ]);
        // The same order whatever the limit (the stable-ranking property).
        for (const limit of [1, 2, 3, 4, 5, 6, 7])
          expect(
            order(await manager.search(query, { mode: "text", limit })),
          ).toEqual(ranked.slice(0, limit));
      },
    );

    suite.it(
      "ranked search across sessions: a user turn passes the assistant's tied turn below the first three places, unless the query addresses the assistant",
      async (store) => {
        const manager = store.manager();
        let minute = 0;
        const write = async (name: string, role: string, text: string) => {
          const { id } = await manager.create(name);
          await manager.getSession(id).importMessage(
            { id: name, role, parts: [{ type: "text", text }] },
            {
              parentId: null,
              createdAt: new Date(Date.UTC(2026, 0, 1, 9, minute++)),
            },
          );
        };
        // Three turns holding every word of the query take the first places; the user's turn and
        // the assistant's, each alone in its session (no session's share), hold the same text,
        // the assistant's written later (ties go to the newest).
        for (const name of ["top-a", "top-b", "top-c"])
          await write(name, "user", "Maui hiking trails");
        await write("mine", "user", "We rented a car on Maui");
        await write("reply", "assistant", "We rented a car on Maui");
        const order = (hits: Array<{ id: string }>) =>
          hits.map((hit) => hit.id);
        const plain = order(
          await manager.search("maui hiking trails", { limit: 10 }),
        );
        expect(plain.slice(3)).toEqual(["reply", "mine"]);
        const ranked = order(
          await manager.search("maui hiking trails", {
            mode: "text",
            limit: 10,
          }),
        );
        expect(ranked).toEqual([...plain.slice(0, 3), "mine", "reply"]);
        // Addressed to the assistant, or asking to be reminded: the ranking's order.
        for (const query of [
          "remind me of maui hiking trails",
          "which maui hiking trails did you like",
        ]) {
          const addressed = order(
            await manager.search(query, { mode: "text", limit: 10 }),
          );
          expect(addressed.slice(3)).toEqual(["reply", "mine"]);
        }
      },
    );
  });
}
