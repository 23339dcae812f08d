import { build, conversation, ids } from "../fixtures.js";
import { caught } from "../helpers.js";
import { eachLayer, type Suite } from "../suite.js";

/**
 * Ranked any-term search, the default (docs/behavior/search.md#ranked-any-term-search): ranking
 * order, stop words per language, stemming and irregular verbs, rare terms, numbers and names;
 * the all-terms mode (`match: "all"`); `since`/`until`. Every case needs `search`.
 */
export function searchMatchSpec(suite: Suite): void {
  const { expect } = suite;
  const search = { search: true } as const;
  suite.describe("search: ranked any-term", () => {
    eachLayer(suite, (suite) => {
      suite.it(
        "finds messages holding any term, those holding every term first, then by how many",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation([
              "alpha epsilon zeta",
              "alpha beta delta",
              "alpha beta gamma",
              "unrelated words here",
            ]),
          );
          expect(ids(await session.search("alpha beta gamma"))).toEqual([
            "m3",
            "m2",
            "m1",
          ]);
          expect(ids(await session.search("gamma beta alpha"))).toEqual([
            "m3",
            "m2",
            "m1",
          ]);
          expect(await session.search("omega psi")).toEqual([]);
        },
        { requires: search },
      );

      suite.it(
        "ranks a message holding every term above one repeating a rarer term",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation([
              "zanzibar project",
              "zanzibar zanzibar zanzibar zanzibar",
              "project notes",
              "project plan",
            ]),
          );
          expect(ids(await session.search("zanzibar project"))[0]).toBe("m1");
        },
        { requires: search },
      );

      suite.it(
        "weighs a rare term above a common one",
        async ({ open }) => {
          const session = open();
          const texts = ["we booked the trip to zanzibar"];
          for (let index = 0; index < 12; index++)
            texts.push(`the project status update number ${index}`);
          await build(session, conversation(texts));
          const found = ids(await session.search("project zanzibar"));
          expect(found[0]).toBe("m1");
          expect(found).toHaveLength(13);
        },
        { requires: search },
      );

      suite.it(
        "ranks a long question by its rarest terms, wherever they stand in it",
        async ({ open }) => {
          const session = open();
          // Twelve content words precede the two that matter; every one of them is common here.
          const scaffolding =
            "going through previous conversation wondering remind mentioned recommended great list options confirm";
          const texts = ["SIAC_GEE corrects Sentinel images atmospherically"];
          for (let index = 0; index < 12; index++)
            texts.push(`${scaffolding} number ${index}`);
          await build(session, conversation(texts));
          const found = ids(
            await session.search(
              `I was ${scaffolding.replace("going", "going,")}: which tool is SIAC_GEE, the Sentinel one?`,
              { limit: 3 },
            ),
          );
          expect(found[0]).toBe("m1");
        },
        { requires: search },
      );

      suite.it(
        "counts each word of the query once, however many of its forms it is searched by",
        async ({ open }) => {
          const session = open();
          // "buy" is searched as buy, buys, buying and bought; to a stemming index the first three
          // are one word, which scored as three phrases outweighed the question's rare word.
          const texts = ["The new bookshelf is from IKEA"];
          for (let index = 0; index < 3; index++)
            texts.push(`I am buying a new lamp, number ${index}`);
          for (let index = 0; index < 36; index++)
            texts.push(`a new week, number ${index}`);
          await build(session, conversation(texts));
          const found = ids(
            await session.search("Where did I buy my new bookshelf from?"),
          );
          expect(found[0]).toBe("m1");
        },
        { requires: { ...search, relevanceRanking: true } },
      );

      suite.it(
        "answers a question: stop words and question words do not count against a match",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation([
              "Caroline went to the LGBTQ support group yesterday",
              "when did you do that? what was it?",
              "the group chat is noisy",
            ]),
          );
          const found = ids(
            await session.search(
              "When did Caroline go to the LGBTQ support group?",
            ),
          );
          expect(found).toEqual(["m1", "m3"]);
        },
        { requires: search },
      );

      suite.it(
        "still finds a query made only of stop words",
        async ({ open }) => {
          const session = open();
          await build(session, conversation(["to be or not to be", "kiwi"]));
          expect(ids(await session.search("not"))).toEqual(["m1"]);
        },
        { requires: { ...search, stopWords: false } },
      );

      const languages: Array<[string, string, string[], string]> = [
        [
          "German",
          "Wann war Caroline in der Selbsthilfegruppe?",
          [
            "Caroline war gestern in der Selbsthilfegruppe",
            "Wann war das? In der Stadt.",
          ],
          "m1",
        ],
        [
          "French",
          "Où est la gare de Lyon ?",
          ["La gare de Lyon ferme tard", "Où est la voiture ? Elle est là."],
          "m1",
        ],
        [
          "Spanish",
          "¿Dónde está la estación de tren?",
          [
            "La estación de tren cierra a las diez",
            "¿Dónde está la casa? Está aquí.",
          ],
          "m1",
        ],
        [
          "Portuguese",
          "Onde está a estação de comboio?",
          ["A estação de comboio fica perto", "Onde é que isso está? Não sei."],
          "m1",
        ],
        [
          "Italian",
          "Quando è partito il treno per Milano?",
          [
            "Il treno per Milano è partito alle otto",
            "Quando è che ci vediamo? Non lo so.",
          ],
          "m1",
        ],
        [
          "Dutch",
          "Wanneer is de trein naar Utrecht vertrokken?",
          [
            "De trein naar Utrecht is vertrokken",
            "Wanneer is het? Ik weet het niet.",
          ],
          "m1",
        ],
      ];
      for (const [language, question, texts, expected] of languages)
        suite.it(
          `drops ${language} stop words from a question`,
          async ({ open }) => {
            const session = open();
            await build(session, conversation(texts));
            expect(ids(await session.search(question))).toEqual([expected]);
          },
          { requires: search },
        );

      suite.it(
        "finds the forms of an irregular verb (go/went, meet/met)",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation([
              "we went to the beach on Sunday",
              "I will meet Anna on Monday",
              "the beach was closed",
            ]),
          );
          expect(ids(await session.search("go beach"))[0]).toBe("m1");
          expect(ids(await session.search("when did they go?"))).toEqual([
            "m1",
          ]);
          expect(ids(await session.search("who met Anna?"))).toEqual(["m2"]);
        },
        { requires: search },
      );

      suite.it(
        "stems English words in a question",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation(["the servers connected at dawn", "unrelated"]),
          );
          expect(
            ids(await session.search("When were the connections made?")),
          ).toEqual(["m1"]);
        },
        { requires: { ...search, stemming: true } },
      );

      suite.it(
        "keeps numbers: they weigh as terms",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation(["the order shipped", "order 66 shipped"]),
          );
          expect(ids(await session.search("When did order 66 ship?"))).toEqual([
            "m2",
            "m1",
          ]);
          expect(ids(await session.search("66"))).toEqual(["m2"]);
        },
        { requires: search },
      );

      suite.it(
        "keeps a capitalised stop word inside a sentence as a name (Will)",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation([
              "Will called the plumber",
              "someone called the plumber",
            ]),
          );
          expect(ids(await session.search("who did Will call?"))[0]).toBe("m1");
        },
        { requires: { ...search, stopWords: false } },
      );
    });
  });

  suite.describe("search: tool calls", () => {
    eachLayer(suite, (suite) => {
      suite.it(
        "finds a tool call by its input, the first 2 KB of it, and forgets it with the message",
        async ({ open }) => {
          const session = open();
          await session.appendMessage({
            id: "m1",
            role: "user",
            parts: [{ type: "text", text: "make me a web app" }],
          });
          await session.appendMessage({
            id: "m2",
            role: "assistant",
            parts: [
              {
                type: "tool-bash",
                toolCallId: "c1",
                state: "output-available",
                input: { command: "npx create-next-app@latest shop" },
                output: "Success! Created shop",
              },
              {
                type: "dynamic-tool",
                toolName: "write_file",
                toolCallId: "c2",
                state: "input-available",
                input: {
                  path: "notes.md",
                  content: `${"filler ".repeat(400)}beyondtheindexedprefix`,
                },
              },
            ],
          });
          const [hit] = await session.search("create-next-app");
          expect(hit?.id).toBe("m2");
          expect(hit?.content.split("\n")[0]).toBe(
            "bash npx create-next-app@latest shop",
          );
          expect(ids(await session.search("write_file notes.md"))).toEqual([
            "m2",
          ]);
          expect(await session.search("Success")).toEqual([]);
          expect(await session.search("beyondtheindexedprefix")).toEqual([]);
          await session.deleteMessages(["m2"]);
          expect(await session.search("create-next-app")).toEqual([]);
        },
        { requires: search },
      );
    });
  });

  suite.describe("search: match all", () => {
    eachLayer(suite, (suite) => {
      suite.it(
        "requires every term, in any order (per-term AND)",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation([
              "the deployment is on Friday",
              "Friday lunch",
              "deployment pipeline",
            ]),
          );
          const all = { match: "all" } as const;
          expect(ids(await session.search("deployment Friday", all))).toEqual([
            "m1",
          ]);
          expect(ids(await session.search("Friday deployment", all))).toEqual([
            "m1",
          ]);
          expect(ids(await session.search("friday   DEPLOYMENT", all))).toEqual(
            ["m1"],
          );
          expect(await session.search("deployment Monday", all)).toEqual([]);
        },
        { requires: search },
      );

      suite.it(
        "requires stop words and question words too",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation(["Caroline went to the support group"]),
          );
          expect(
            await session.search("When did Caroline go to the support group?", {
              match: "all",
            }),
          ).toEqual([]);
          expect(
            ids(
              await session.search("Caroline support group", { match: "all" }),
            ),
          ).toEqual(["m1"]);
        },
        { requires: search },
      );

      suite.it(
        "treats AND, OR, NOT and NEAR as words that must appear",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation([
              "cats and dogs",
              "cats or dogs",
              "cats not dogs",
              "cats dogs",
              "cats near dogs",
            ]),
          );
          const all = { match: "all" } as const;
          expect(ids(await session.search("cats AND dogs", all))).toEqual([
            "m1",
          ]);
          expect(ids(await session.search("cats OR dogs", all))).toEqual([
            "m2",
          ]);
          expect(ids(await session.search("cats NOT dogs", all))).toEqual([
            "m3",
          ]);
          expect(ids(await session.search("NEAR cats", all))).toEqual(["m5"]);
          expect(ids(await session.search("NOT", all))).toEqual(["m3"]);
        },
        { requires: { ...search, stopWords: false } },
      );
    });
  });

  suite.describe("search: since and until", () => {
    eachLayer(suite, (suite) => {
      suite.it(
        "filters on the message time: since inclusive, until exclusive",
        async ({ open }) => {
          const session = open();
          for (const [index, text] of [
            "kiwi one",
            "kiwi two",
            "kiwi three",
          ].entries()) {
            await build(session, conversation([text], `m${index}-`));
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          const all = await session.search("kiwi");
          const times = new Map(all.map((hit) => [hit.id, hit.createdAt!]));
          const middle = times.get("m1-1")!;
          expect(
            ids(await session.search("kiwi", { since: middle })).sort(),
          ).toEqual(["m1-1", "m2-1"]);
          expect(ids(await session.search("kiwi", { until: middle }))).toEqual([
            "m0-1",
          ]);
          expect(
            ids(
              await session.search("kiwi", {
                since: times.get("m0-1")!,
                until: times.get("m2-1")!,
                match: "all",
              }),
            ).sort(),
          ).toEqual(["m0-1", "m1-1"]);
          expect(
            await session.search("kiwi", { since: "2999-01-01T00:00:00.000Z" }),
          ).toEqual([]);
        },
        { requires: search },
      );
    });

    suite.withLayer("session").it(
      "takes a Date, and rejects an invalid instant with INVALID_ARGUMENT",
      async ({ session }) => {
        const subject = session();
        await subject.appendMessage({
          id: "m1",
          role: "user",
          parts: [{ type: "text", text: "kiwi" }],
        });
        expect(
          ids(await subject.search("kiwi", { since: new Date(0) })),
        ).toEqual(["m1"]);
        expect(await subject.search("kiwi", { until: new Date(0) })).toEqual(
          [],
        );
        for (const bad of ["yesterday", "2026-13-45", new Date(Number.NaN)]) {
          const error = await caught(() =>
            subject.search("kiwi", { since: bad }),
          );
          expect((error as { code?: string }).code).toBe("INVALID_ARGUMENT");
        }
        const error = await caught(() =>
          subject.search("kiwi", { match: "some" as "all" }),
        );
        expect((error as { code?: string }).code).toBe("INVALID_ARGUMENT");
      },
      { requires: search },
    );
  });
}
