// Reads the file derive-longmemeval-s.mjs writes (outside this repository; ARBOR_LONGMEMEVAL_S
// names it) as the LongMemEval-S run needs it: each question with its evidence as LongMemEval's
// retrieval evaluation defines it, and its haystack's user turns, built when asked for.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { brotliDecompressSync } from "node:zlib";
import { questionHalf } from "./longmemeval-s-metrics.mjs";

/**
 * The derived file, read and checked, with each question's haystack built on demand: an array of
 * `{ key, name, turns: [{ id, role, text, createdAt }] }`, user turns only.
 */
export function loadLongMemEvalS(file) {
  const bytes = readFileSync(file);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const data = JSON.parse(brotliDecompressSync(bytes).toString("utf8"));
  if (
    !Array.isArray(data.sessions) ||
    !Array.isArray(data.questions) ||
    !data.questions.every((q) => Array.isArray(q.haystack))
  )
    throw new Error(
      `${file}: not a file of bench/recall-quality/derive-longmemeval-s.mjs`,
    );
  const questions = data.questions.map((item) => {
    const answers = new Set(item.answerSessions);
    const evidenceTurns = new Set();
    const evidenceSessions = new Set();
    for (const index of item.haystack) {
      const session = data.sessions[index];
      if (!answers.has(session.id)) continue;
      for (const at of session.answerTurns ?? [])
        if (session.turns[at][0] === "user") {
          evidenceTurns.add(`${session.id}:${at}`);
          evidenceSessions.add(session.id);
        }
    }
    return {
      item,
      id: item.id,
      type: item.type,
      question: item.question,
      date: item.date,
      half: questionHalf(item.id),
      scored: !item.id.endsWith("_abs") && evidenceTurns.size > 0,
      evidenceTurns,
      evidenceSessions,
    };
  });
  return {
    bytes: bytes.length,
    sha256,
    source: data.source,
    questions,
    haystackOf({ item }) {
      const seen = new Map();
      return item.haystack.map((index, at) => {
        const session = data.sessions[index];
        // A few haystacks list one session twice: the second copy gets a key of its own, and
        // its turns still count as that session's.
        const copy = (seen.get(session.id) ?? 0) + 1;
        seen.set(session.id, copy);
        const key = copy === 1 ? session.id : `${session.id}~${copy}`;
        const start = Date.parse(item.dates[at]);
        return {
          key,
          name: session.id,
          turns: session.turns.flatMap(([role, text], turn) =>
            role === "user"
              ? [
                  {
                    id: `${key}:${turn}`,
                    role,
                    text,
                    createdAt: new Date(start + turn * 1000).toISOString(),
                  },
                ]
              : [],
          ),
        };
      });
    },
  };
}

/** The LongMemEval session of a turn id `<session>:<turn>`, or of a session key. */
export function sessionOfTurn(id) {
  return id.replace(/:\d+$/, "").replace(/~\d+$/, "");
}

/** A turn of a session's second copy (`<session>~2:<turn>`) as the turn it copies. */
export function originalTurn(id) {
  return id.replace(/~\d+:(\d+)$/, ":$1");
}
