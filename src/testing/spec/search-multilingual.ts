import { build, conversation, ids } from "../fixtures.js";
import type { Suite } from "../suite.js";

/** How many seeded random queries the fuzz case sends, and its seed. */
export const FUZZ_QUERIES = 300;
export const FUZZ_SEED = 0x5eed;
/** Query pieces that are operators in FTS5, tsquery or common query grammars. */
export const FUZZ_PIECES = [
  '"',
  "'",
  "*",
  "^",
  ":",
  "(",
  ")",
  "-",
  "+",
  "~",
  "{",
  "}",
  "[",
  "]",
  "\\",
  "/",
  "!",
  "&",
  "|",
  "<",
  "->",
  "<->",
  "NEAR",
  "NEAR/2",
  "AND",
  "OR",
  "NOT",
  "near",
  "or",
  "id:",
  "content:",
  "'s",
  "%",
  "_",
  "\u0000",
  "\u200b",
  " ",
  " ",
  "  ",
  "\t",
  "\n",
  "deploy",
  "Friday",
  "金曜日",
  "咖啡",
  "пятницу",
  "é",
  "🎉",
  "0",
  "1e9",
];

const MULTILINGUAL: readonly string[] = [
  "本番環境へのデプロイは金曜日です",
  "用户喜欢喝咖啡",
  "Деплой назначен на пятницу",
  "금요일에 배포합니다",
  "Встреча в понедельник",
  "release on Friday 金曜日",
];

/** Words inside sentences in Japanese, Chinese, Korean and Russian. */
export function describeMultilingual(suite: Suite): void {
  const { expect } = suite;
  const search = { search: true } as const;
  const cases: Array<[name: string, query: string, expected: string[]]> = [
    ["finds a Japanese word inside a sentence", "金曜日", ["m6", "m1"]],
    ["finds a Chinese word inside a sentence", "咖啡", ["m2"]],
    ["finds a one-character CJK term", "喝", ["m2"]],
    ["finds a Katakana word", "デプロイ", ["m1"]],
    ["finds a Hangul word inside a phrase", "배포", ["m4"]],
    ["finds a Russian word form in Russian messages only", "пятницу", ["m3"]],
    [
      "finds either of mixed CJK and Latin terms",
      "Friday 金曜日",
      ["m6", "m1"],
    ],
    ["finds nothing for an absent CJK word", "土曜日", []],
  ];
  for (const [name, query, expected] of cases) {
    suite.it(
      `${name} (${query})`,
      async ({ open }) => {
        const session = open();
        await build(session, conversation(MULTILINGUAL));
        const found = ids(await session.search(query));
        // Rank order among several hits is backend-specific; compare as sets.
        expect([...found].sort()).toEqual([...expected].sort());
      },
      { requires: search },
    );
  }
  suite.it(
    "ranks the message holding both of mixed CJK and Latin terms first",
    async ({ open }) => {
      const session = open();
      await build(session, conversation(MULTILINGUAL));
      expect(ids(await session.search("Friday 金曜日"))[0]).toBe("m6");
    },
    { requires: search },
  );
  suite.it(
    "ANDs mixed CJK and Latin terms under match: all",
    async ({ open }) => {
      const session = open();
      await build(session, conversation(MULTILINGUAL));
      expect(
        ids(await session.search("Friday 金曜日", { match: "all" })),
      ).toEqual(["m6"]);
    },
    { requires: search },
  );
}
