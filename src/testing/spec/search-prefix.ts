import { build, conversation, ids } from "../fixtures.js";
import { caught } from "../helpers.js";
import { eachLayer, type Suite } from "../suite.js";

/**
 * Prefix search (docs/search.md#prefix-search): with `prefix`, the last term (`"last"`, or
 * `true` on a Session) or every term (`"all"`) matches as the start of a word, as a search box
 * types it. Every case needs `search`.
 */
export function searchPrefixSpec(suite: Suite): void {
  const { expect } = suite;
  const search = { search: true } as const;
  const notes = [
    "the launch budget is approved",
    "we budgeted too little for travel",
    "lunch with the budget committee",
    "the launch slipped a week",
    "unrelated note about lamps",
  ];
  suite.describe("search", () => {
    eachLayer(suite, (suite) => {
      suite.it(
        "matches the last term as a word prefix: budg finds budget and budgeted, and nothing without prefix",
        async ({ open }) => {
          const session = open();
          await build(session, conversation(notes));
          expect(await session.search("budg")).toEqual([]);
          expect(
            ids(await session.search("budg", { prefix: "last" })).sort(),
          ).toEqual(["m1", "m2", "m3"]);
          // The earlier terms stay whole words; a message holding every term ranks first.
          const hits = await session.search("launch budg", { prefix: "last" });
          expect(hits[0]?.id).toBe("m1");
          expect(ids(hits).sort()).toEqual(["m1", "m2", "m3", "m4"]);
          expect(
            ids(
              await session.search("launch budg", {
                prefix: "last",
                match: "all",
              }),
            ),
          ).toEqual(["m1"]);
          expect(
            await session.search("laun budg", {
              prefix: "last",
              match: "all",
            }),
          ).toEqual([]);
        },
        { requires: search },
      );

      suite.it(
        'matches every term as a prefix with "all", and a whole word typed still matches',
        async ({ open }) => {
          const session = open();
          await build(session, conversation(notes));
          expect(
            ids(
              await session.search("laun budg", {
                prefix: "all",
                match: "all",
              }),
            ),
          ).toEqual(["m1"]);
          // A complete word is a prefix of itself.
          expect(
            ids(await session.search("committee", { prefix: "last" })),
          ).toEqual(["m3"]);
        },
        { requires: search },
      );

      suite.it(
        "stems a complete word typed as a prefix, so it matches its other forms",
        async ({ open }) => {
          const session = open();
          await build(session, conversation(notes));
          // The prefix is stemmed as the indexed text is: "budgets" is the prefix "budget". An
          // index that does not stem (PostgreSQL's 'simple') matches the letters as typed.
          expect(
            ids(await session.search("budgets", { prefix: "all" })).sort(),
          ).toEqual(["m1", "m2", "m3"]);
        },
        { requires: { ...search, stemming: true } },
      );

      suite.it(
        "matches a one-letter last term as a whole word only, and ranks prefix matches by relevance",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation([
              "budget b",
              "budget budgeting budgets",
              "a plain budget line",
            ]),
          );
          // Too short to be a prefix: "b" matches the word "b" alone.
          expect(ids(await session.search("b", { prefix: "last" }))).toEqual([
            "m1",
          ]);
          const ranked = await session.search("budg", { prefix: "last" });
          expect(ids(ranked).sort()).toEqual(["m1", "m2", "m3"]);
          expect(ranked[0]?.id).toBe("m2");
        },
        { requires: { ...search, relevanceRanking: true } },
      );
    });

    suite.withLayer("session").it(
      "takes prefix: true as the last term, and rejects another value with INVALID_ARGUMENT",
      async ({ session }) => {
        const subject = session();
        await build(subject, conversation(notes));
        expect(
          ids(await subject.search("launch budg", { prefix: true })),
        ).toContain("m1");
        expect(await subject.search("budg", { prefix: false })).toEqual([]);
        const error = await caught(() =>
          subject.search("budg", { prefix: "first" as "all" }),
        );
        expect((error as { code?: string }).code).toBe("INVALID_ARGUMENT");
      },
      { requires: search },
    );
  });
}
