// The LongMemEval-S run's own parts, without its data (which is not in this repository): the
// derive script on two made-up one-question files, the loader's evidence and haystacks, and the
// paper's retrieval measures on rankings worked out by hand.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: a bench module in plain JavaScript, without declarations
import { loadLongMemEvalS } from "../../bench/recall-quality/longmemeval-s-data.mjs";
import {
  questionHalf,
  retrievalScores,
  sessionRanking,
  sessionScoresOfTurns,
  // @ts-expect-error: a bench module in plain JavaScript, without declarations
} from "../../bench/recall-quality/longmemeval-s-metrics.mjs";

const DERIVE = join(
  __dirname,
  "../../bench/recall-quality/derive-longmemeval-s.mjs",
);
const dir = mkdtempSync(join(tmpdir(), "arbor-lme-s-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A question as the loader returns it (the fields read here). */
interface LoadedQuestion {
  id: string;
  scored: boolean;
  evidenceTurns: Set<string>;
  evidenceSessions: Set<string>;
}

const turn = (role: string, content: string, hasAnswer = false) => ({
  role,
  content,
  has_answer: hasAnswer,
});
const shared = [turn("user", "I adopted a cat"), turn("assistant", "Nice!")];
const instance = (
  id: string,
  type: string,
  sessions: [string, string, ReturnType<typeof turn>[]][],
  answers: string[],
) => ({
  question_id: id,
  question_type: type,
  question: `question ${id}?`,
  answer: 3,
  question_date: "2023/05/30 (Tue) 10:00",
  haystack_session_ids: sessions.map(([sid]) => sid),
  haystack_dates: sessions.map(([, date]) => date),
  haystack_sessions: sessions.map(([, , turns]) => turns),
  answer_session_ids: answers,
});

function derive(files: Record<string, unknown>) {
  const folder = mkdtempSync(join(dir, "in-"));
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(folder, name), JSON.stringify(content));
  const out = join(folder, "out.json.br");
  const printed = execFileSync(
    process.execPath,
    [DERIVE, "--haystack", folder, "--out", out, "--quality", "4"],
    { encoding: "utf8", stdio: "pipe" },
  );
  return { out, printed };
}

describe("LongMemEval-S derive script and loader", () => {
  it("stores a session shared by two haystacks once, keeps each haystack's own dates, and reads the paper's evidence", () => {
    const { out, printed } = derive({
      "2_a1.json": instance(
        "a1",
        "single-session-user",
        [
          ["shared_0", "2023/05/01 (Mon) 09:00", shared],
          [
            "answer_x",
            "2023/05/02 (Tue) 09:00",
            [
              turn("user", "my cat is called Tom", true),
              turn("assistant", "Tom is a good name", true),
            ],
          ],
          ["shared_0", "2023/05/03 (Wed) 09:00", shared],
        ],
        ["answer_x"],
      ),
      // The oracle instance of the same question, as a folder of one-question files holds it
      // beside the _s one: the larger haystack is kept.
      "1_a1.json": instance(
        "a1",
        "single-session-user",
        [
          [
            "answer_x",
            "2023/05/02 (Tue) 09:00",
            [
              turn("user", "my cat is called Tom", true),
              turn("assistant", "Tom is a good name", true),
            ],
          ],
        ],
        ["answer_x"],
      ),
      "2_b2_abs.json": instance(
        "b2_abs",
        "multi-session",
        [["shared_0", "2023/04/01 (Sat) 12:30", shared]],
        [],
      ),
      "2_c3.json": instance(
        "c3",
        "single-session-assistant",
        [
          [
            "answer_y",
            "2023/05/04 (Thu) 09:00",
            [turn("user", "which tea?"), turn("assistant", "Earl Grey", true)],
          ],
        ],
        ["answer_y"],
      ),
    });
    expect(printed).toContain(
      "3 questions, 5 haystack sessions of which 3 distinct",
    );
    expect(statSync(out).size).toBeGreaterThan(0);

    const data = loadLongMemEvalS(out);
    const byId = (id: string): LoadedQuestion => {
      const found = data.questions.find((q: LoadedQuestion) => q.id === id);
      if (!found) throw new Error(`no question ${id}`);
      return found;
    };
    const a1 = byId("a1");
    expect([...a1.evidenceTurns]).toEqual(["answer_x:0"]);
    expect([...a1.evidenceSessions]).toEqual(["answer_x"]);
    expect(a1.scored).toBe(true);
    // Not scored, as in the paper: an abstention, and an answer held only by an assistant turn.
    expect(byId("b2_abs").scored).toBe(false);
    expect(byId("c3").scored).toBe(false);

    const haystack = data.haystackOf(a1);
    expect(haystack.map((s: { key: string }) => s.key)).toEqual([
      "shared_0",
      "answer_x",
      "shared_0~2",
    ]);
    // User turns only, each at its haystack's date plus a second per turn index.
    expect(haystack[2].turns).toEqual([
      {
        id: "shared_0~2:0",
        role: "user",
        text: "I adopted a cat",
        createdAt: "2023-05-03T09:00:00.000Z",
      },
    ]);
    expect(data.haystackOf(byId("b2_abs"))[0].turns[0].createdAt).toBe(
      "2023-04-01T12:30:00.000Z",
    );
  });

  it("refuses a haystack of the _m size", () => {
    const big = Array.from(
      { length: 101 },
      (_, i) =>
        [`s${i}`, "2023/05/01 (Mon) 09:00", shared] as [
          string,
          string,
          ReturnType<typeof turn>[],
        ],
    );
    expect(() =>
      derive({ "101_m.json": instance("m", "multi-session", big, []) }),
    ).toThrow(/_m split/);
  });
});

describe("LongMemEval's retrieval measures", () => {
  it("recall_any, recall_all, the share and NDCG@10 with the paper's DCG", () => {
    const scores = retrievalScores(
      ["n1", "e1", "n2", "n3", "n4", "n5", "e2", "n6", "n7", "n8", "e3"],
      new Set(["e1", "e2", "e3"]),
    );
    // DCG = rel1 + rel2/log2(2) + rel3/log2(3) + …: e1 at 2 counts 1, e2 at 7 counts 1/log2(7).
    const dcg = 1 + 1 / Math.log2(7);
    const ideal = 1 + 1 + 1 / Math.log2(3);
    expect(scores).toEqual({
      "recall_any@5": 1,
      "recall_all@5": 0,
      "recall_any@10": 1,
      "recall_all@10": 0,
      "recall@10": 2 / 3,
      "ndcg@10": dcg / ideal,
    });
    expect(retrievalScores([], new Set(["e1"]))["ndcg@10"]).toBe(0);
  });

  it("scores a turn ranking at session level as the paper's script does", () => {
    const sessionOf = (id: string) =>
      id.replace(/:\d+$/, "").replace(/~\d+$/, "");
    // Three turns of one session take one place: the first 5 sessions reach the 7th turn.
    expect(
      sessionScoresOfTurns(
        ["b:0", "b:1", "b:2", "c:0", "d:0", "e:0", "a:1"],
        new Set(["a:1"]),
        new Set(["a"]),
        sessionOf,
      ),
    ).toEqual({
      "recall_any@5": 1,
      "recall_all@5": 1,
      "recall_any@10": 1,
      "recall_all@10": 1,
      "recall@10": 1,
      "ndcg@10": 1 / Math.log2(7),
    });
    // A turn of an answer session that is not evidence does not find the session, and takes a
    // place of its own.
    const scores = sessionScoresOfTurns(
      [
        "a:1",
        "a:2",
        "b:0",
        "c:0",
        "d:0",
        "e:0",
        "f:0",
        "g:0",
        "h:0",
        "i:0",
        "x:3",
      ],
      new Set(["a:1", "x:3"]),
      new Set(["a", "x"]),
      sessionOf,
    );
    expect(scores["recall_any@10"]).toBe(1);
    expect(scores["recall_all@10"]).toBe(0);
    expect(scores["ndcg@10"]).toBe(1 / 2);
    expect(
      sessionScoresOfTurns(
        ["a:2"],
        new Set(["a:1"]),
        new Set(["a"]),
        sessionOf,
      )["recall_any@5"],
    ).toBe(0);
  });

  it("reads session ids at their first place, and halves ids by their last digit", () => {
    expect(
      sessionRanking(["a", "b", "a", "c~2"], (id: string) =>
        id.replace(/~\d+$/, ""),
      ),
    ).toEqual(["a", "b", "c"]);
    expect(questionHalf("001be529")).toBe("odd");
    expect(questionHalf("0862e8bf_abs")).toBe("odd");
    expect(questionHalf("gpt4_2f8be40d")).toBe("odd");
    expect(questionHalf("1e043500")).toBe("even");
    expect(questionHalf("a1b2c3da")).toBe("even");
  });
});
