import { build, conversation, ids, textMessage } from "../fixtures.js";
import { caught, isIsoTimestamp, pick, prng } from "../helpers.js";
import { eachLayer, type Suite } from "../suite.js";
import {
  describeMultilingual,
  FUZZ_PIECES,
  FUZZ_QUERIES,
  FUZZ_SEED,
} from "./search-multilingual.js";

/** Full-text search (docs/behavior/search.md). Every case needs `search`; some need more flags. */
export function searchSpec(suite: Suite): void {
  const { expect } = suite;
  const search = { search: true } as const;
  suite.describe("search", () => {
    eachLayer(suite, (suite) => {
      suite.it(
        "finds a message by one word and returns its indexed text",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation(["the deployment is on Friday", "lunch is at noon"]),
          );
          const results = await session.search("friday");
          expect(ids(results)).toEqual(["m1"]);
          expect(results[0]?.role).toBe("user");
          expect(results[0]?.content).toBe("the deployment is on Friday");
          expect(isIsoTimestamp(results[0]?.createdAt)).toBe(true);
        },
        { requires: search },
      );

      suite.it(
        "returns [] for an empty or blank query",
        async ({ open }) => {
          const session = open();
          await build(session, conversation(["anything at all"]));
          for (const query of ["", " ", "\t\n  "]) {
            expect(await session.search(query)).toEqual([]);
          }
        },
        { requires: search },
      );

      suite.it(
        "indexes text parts joined by newlines and tool-call inputs, never reasoning or tool outputs",
        async ({ open }) => {
          const session = open();
          await session.appendMessage({
            id: "m1",
            role: "assistant",
            parts: [
              { type: "text", text: "alpha" },
              { type: "reasoning", text: "secretreasoning" },
              {
                type: "tool-lookup",
                toolCallId: "c1",
                state: "output-available",
                input: { q: "toolinputword" },
                output: "tooloutputword",
              },
              { type: "text", text: "beta" },
            ],
          });
          const [hit] = await session.search("alpha beta");
          expect(hit?.content).toBe("alpha\nbeta\nlookup toolinputword");
          expect(hit?.role).toBe("assistant");
          expect(ids(await session.search("toolinputword"))).toEqual(["m1"]);
          for (const hidden of ["secretreasoning", "tooloutputword"]) {
            expect(await session.search(hidden)).toEqual([]);
          }
        },
        { requires: search },
      );

      suite.it(
        "finds nothing in a message without text parts",
        async ({ open }) => {
          const session = open();
          await session.appendMessage({
            id: "m1",
            role: "assistant",
            parts: [{ type: "reasoning", text: "ponder" }],
          });
          expect(await session.search("ponder")).toEqual([]);
        },
        { requires: search },
      );

      suite.it(
        "treats quotes as ordinary characters, not as a phrase",
        async ({ open }) => {
          const session = open();
          await build(session, conversation(["the deployment is on Friday"]));
          expect(ids(await session.search('"Friday deployment"'))).toEqual([
            "m1",
          ]);
        },
        { requires: search },
      );

      suite.it(
        "does not treat * as a prefix operator",
        async ({ open }) => {
          const session = open();
          await build(session, conversation(["deployment pipeline"]));
          expect(await session.search("deplo*")).toEqual([]);
          expect(ids(await session.search("pipeline*"))).toEqual(["m1"]);
        },
        { requires: search },
      );

      suite.it(
        "never throws on operator characters (seeded fuzz)",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation([
              "deploy on Friday",
              "本番環境へのデプロイは金曜日です",
              'quotes " and * stars ^ carets: colons (parens) NEAR/2 -minus',
              "Деплой назначен на пятницу",
            ]),
          );
          const random = prng(FUZZ_SEED);
          for (let round = 0; round < FUZZ_QUERIES; round++) {
            const pieces = 1 + Math.floor(random() * 6);
            let query = "";
            for (let index = 0; index < pieces; index++)
              query += pick(random, FUZZ_PIECES);
            const error = await caught(async () => {
              const results = await session.search(query, { limit: 5 });
              if (!Array.isArray(results))
                throw new Error("search did not return an array");
            });
            expect({ query, error: String(error) }).toEqual({
              query,
              error: "undefined",
            });
          }
        },
        { requires: search },
      );

      suite.it(
        "folds case, Latin and Cyrillic",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation(["Release on FRIDAY", "Деплой назначен на пятницу"]),
          );
          expect(ids(await session.search("friday"))).toEqual(["m1"]);
          expect(ids(await session.search("ДЕПЛОЙ"))).toEqual(["m2"]);
        },
        { requires: search },
      );

      suite.it(
        "folds diacritics",
        async ({ open }) => {
          const session = open();
          await build(session, conversation(["Café au lait", "plain cafe"]));
          expect(ids(await session.search("cafe")).sort()).toEqual([
            "m1",
            "m2",
          ]);
          expect(ids(await session.search("CAFÉ")).sort()).toEqual([
            "m1",
            "m2",
          ]);
        },
        { requires: { ...search, diacriticFolding: true } },
      );

      suite.it(
        "matches plural and -ing forms",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation(["one deployment today", "we are testing now"]),
          );
          expect(ids(await session.search("deployments"))).toEqual(["m1"]);
          expect(ids(await session.search("test"))).toEqual(["m2"]);
        },
        { requires: { ...search, lightStemming: true } },
      );

      suite.it(
        "stems English words",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation(["the servers connected at dawn", "unrelated"]),
          );
          expect(ids(await session.search("connections"))).toEqual(["m1"]);
          expect(ids(await session.search("connecting server"))).toEqual([
            "m1",
          ]);
        },
        { requires: { ...search, stemming: true } },
      );

      describeMultilingual(suite);

      suite.it(
        "caps results at limit",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation(Array.from({ length: 5 }, () => "apple pie")),
          );
          expect(await session.search("apple", { limit: 2 })).toHaveLength(2);
          expect(await session.search("apple", { limit: 10 })).toHaveLength(5);
        },
        { requires: search },
      );

      suite.it(
        "searches only this session's rows",
        async ({ open }) => {
          const a = open("a");
          const b = open("b");
          await build(a, conversation(["shared secret word"], "a"));
          await build(b, conversation(["shared secret word"], "b"));
          expect(ids(await a.search("secret"))).toEqual(["a1"]);
          expect(ids(await b.search("secret"))).toEqual(["b1"]);
        },
        { requires: search },
      );

      suite.it(
        "re-indexes a message and its role on update",
        async ({ open }) => {
          const session = open();
          await build(session, conversation(["apple"]));
          await session.updateMessage(textMessage("m1", "banana", "assistant"));
          expect(await session.search("apple")).toEqual([]);
          const [hit] = await session.search("banana");
          expect(hit?.id).toBe("m1");
          expect(hit?.role).toBe("assistant");
          expect(hit?.content).toBe("banana");
          await session.updateMessage({ id: "m1", role: "user", parts: [] });
          expect(await session.search("banana")).toEqual([]);
        },
        { requires: search },
      );

      suite.it(
        "stays exact after updates and deletes of messages already searched",
        async ({ open }) => {
          const session = open();
          await build(
            session,
            conversation(["apple one", "apple two", "apple three"]),
          );
          // Searched first, so the index holds every message before they change.
          expect(ids(await session.search("apple")).sort()).toEqual([
            "m1",
            "m2",
            "m3",
          ]);
          await session.updateMessage(textMessage("m1", "banana one"));
          await session.updateMessage(textMessage("m1", "cherry one"));
          await session.deleteMessages(["m3"]);
          expect(ids(await session.search("apple"))).toEqual(["m2"]);
          expect(await session.search("banana")).toEqual([]);
          expect(ids(await session.search("cherry"))).toEqual(["m1"]);
          expect(await session.search("three")).toEqual([]);
          await session.updateMessage(textMessage("m2", "cherry two"));
          expect(ids(await session.search("cherry")).sort()).toEqual([
            "m1",
            "m2",
          ]);
          expect(await session.search("apple")).toEqual([]);
        },
        { requires: search },
      );

      suite.it(
        "leaves the index alone on an update of an unknown id",
        async ({ open }) => {
          const session = open();
          await build(session, conversation(["apple"]));
          await session.updateMessage(textMessage("ghost", "phantom"));
          expect(await session.search("phantom")).toEqual([]);
        },
        { requires: search },
      );

      suite.it(
        "forgets deleted and cleared messages",
        async ({ open }) => {
          const session = open();
          await build(session, conversation(["apple one", "apple two"]));
          await session.deleteMessages(["m1"]);
          expect(ids(await session.search("apple"))).toEqual(["m2"]);
          await session.clearMessages();
          expect(await session.search("apple")).toEqual([]);
        },
        { requires: search },
      );

      suite.it(
        "does not index compaction summaries",
        async ({ open }) => {
          const session = open();
          await build(session, conversation(["apple", "pear"]));
          await session.addCompaction("zebra summary", "m1", "m2");
          expect(await session.search("zebra")).toEqual([]);
        },
        { requires: search },
      );
    });

    suite.describe("session only", () => {
      suite.withLayer("session").it(
        "defaults to 20 results and ignores limits that are not positive integers",
        async ({ open }) => {
          const subject = open();
          await build(
            subject,
            conversation(
              Array.from({ length: 25 }, (_, index) => `apple ${index}`),
            ),
          );
          expect(await subject.search("apple")).toHaveLength(20);
          for (const limit of [0, -1, 2.5, Number.NaN, Infinity]) {
            expect(await subject.search("apple", { limit })).toHaveLength(20);
          }
          expect(await subject.search("apple", { limit: 3 })).toHaveLength(3);
        },
        { requires: search },
      );
    });
  });
}
