// The default data of the recall-quality benchmark: LongMemEval (Wu et al., ICLR 2025; MIT
// licence, data/LICENSE-LongMemEval), pooled into one history by derive-longmemeval.mjs and
// committed as data/longmemeval-pooled.json.br, so the benchmark runs from a fresh clone with no
// download. 1,540 sessions (the 940 evidence sessions of the 500 questions and 600 of their
// haystack sessions), each with its real date; every question is searched across all of them.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync } from "node:zlib";

const FILE = join(
  dirname(fileURLToPath(import.meta.url)),
  "data",
  "longmemeval-pooled.json.br",
);
/** The committed file's SHA-256: a change to it is a change to the benchmark. */
const SHA256 =
  "a7d396eabc4b03585c8480975e64550ab3801a3db66d3a4c5b570ccb636d404a";

export const LONGMEMEVAL = {
  name: "LongMemEval, pooled",
  source:
    "github.com/xiaowu0162/LongMemEval (ICLR 2025), pooled by bench/recall-quality/derive-longmemeval.mjs",
  licence: "MIT (Copyright (c) 2024 Di Wu), committed with its notice",
};

/**
 * The pooled history as the benchmark writes it: `conversations` are LongMemEval's sessions (one
 * Arbor session each, named by its LongMemEval id, a turn's id `<session>:<index>`, turn `index`
 * at the session's date plus `index` seconds), and `questions` carry `conversation: null`, so
 * each is searched across every session, with the question's own date as `now`. Questions
 * without an evidence turn (most abstention questions) are counted in `skipped`.
 */
export function loadLongMemEval() {
  const bytes = readFileSync(FILE);
  const actual = createHash("sha256").update(bytes).digest("hex");
  if (actual !== SHA256)
    throw new Error(`${FILE}: SHA-256 ${actual}, expected ${SHA256}`);
  const pooled = JSON.parse(brotliDecompressSync(bytes).toString("utf8"));
  const conversations = pooled.sessions.map((session) => {
    const start = Date.parse(session.date);
    return {
      name: session.id,
      turns: session.turns.map(([role, text], index) => ({
        id: `${session.id}:${index}`,
        role: role === "assistant" ? "assistant" : "user",
        text,
        createdAt: new Date(start + index * 1000).toISOString(),
      })),
    };
  });
  const questions = [];
  let skipped = 0;
  for (const item of pooled.questions) {
    if (item.evidence.length === 0) {
      skipped++;
      continue;
    }
    questions.push({
      id: item.id,
      question: item.question,
      category: item.type,
      evidence: new Set(item.evidence),
      conversation: null,
      now: item.date,
    });
  }
  return {
    dataset: LONGMEMEVAL,
    conversations,
    questions,
    skipped,
    droppedIds: 0,
    expected: { questions: 479, skipped: 21, droppedIds: 0 },
    scope: "every session of the pooled history",
  };
}
