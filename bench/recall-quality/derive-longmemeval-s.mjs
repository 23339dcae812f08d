// Builds the data of the LongMemEval-S run (bench/recall-quality/longmemeval-s.mjs) from
// LongMemEval's `_s` file (Wu et al., ICLR 2025, arXiv:2410.10813; MIT licence, Copyright (c)
// 2024 Di Wu): 500 questions, each with its own haystack of about 50 dated sessions.
//
//   node bench/recall-quality/derive-longmemeval-s.mjs --haystack <file|folder> [--haystack …] --out <file> [--source <text>] [--quality 0-11]
//
// <file|folder> is the released `longmemeval_s` file (a JSON array of instances) or a folder of
// JSON files holding one instance (or an array) each, as some copies republish it one question
// per file; `--haystack` may be given more than once. When a question id is read more than once
// (a folder that also holds the oracle instances), the instance with the larger haystack is kept,
// and one of more than 100 sessions (the `_m` split) is refused: this run is the `_s` one.
//
// The output is written where `--out` says, not into this repository: the data stays with whoever
// fetched it. What it holds (brotli-compressed JSON), each session stored once however many
// haystacks share it:
//   { source, sessions: [{ id, turns: [[role, text]], answerTurns?: [index] }],
//     questions: [{ id, type, question, answer, date, answerSessions, haystack: [session index],
//                   dates: [ISO date of each haystack session] }] }
// `answerTurns` are the turns LongMemEval marks `has_answer`. The dates stay with the question:
// LongMemEval gives one session different dates in different haystacks (and a few haystacks list
// one session twice), so a session's date belongs to the haystack, not to the session. Dates are
// ISO-8601, read as UTC (LongMemEval names no time zone). `--quality` is brotli's (default 11, the
// smallest file; several minutes for this much text, where 5 takes seconds).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants } from "node:zlib";

/** A haystack larger than this is not the `_s` split's (about 50 sessions; `_m` has about 500). */
const MAX_S_SESSIONS = 100;

const haystacks = [];
let out;
let source = "";
let quality = 11;
let unknown = false;
for (let at = 2; at < process.argv.length; at += 2) {
  const [flag, value] = [process.argv[at], process.argv[at + 1]];
  if (flag === "--haystack") haystacks.push(value);
  else if (flag === "--out") out = value;
  else if (flag === "--source") source = value;
  else if (flag === "--quality") quality = Number(value);
  else unknown = true;
}
if (
  unknown ||
  haystacks.length === 0 ||
  !out ||
  !(Number.isInteger(quality) && quality >= 0 && quality <= 11)
) {
  console.error(
    "usage: node bench/recall-quality/derive-longmemeval-s.mjs --haystack <file|folder> [--haystack <file|folder>] --out <file> [--source <text>] [--quality 0-11]",
  );
  process.exit(2);
}
const repository = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
if (resolve(out).startsWith(repository + "/"))
  console.warn(
    `derive-longmemeval-s: ${out} is inside the repository; keep the data outside it (it is not ours to commit)`,
  );

/** Every instance in a LongMemEval file or a folder of them, in file-name order. */
function instances(path) {
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((name) => name.endsWith(".json"))
        .sort()
        .map((name) => join(path, name))
    : [path];
  return files.flatMap((file) => {
    const data = JSON.parse(readFileSync(file, "utf8"));
    return (Array.isArray(data) ? data : [data]).filter(
      (item) => item && typeof item.question_id === "string",
    );
  });
}

/** "2023/05/21 (Sun) 19:50" as ISO-8601 UTC. */
function parseDate(value) {
  const match = /^(\d{4})\/(\d{2})\/(\d{2}) \(\w+\) (\d{2}):(\d{2})$/.exec(
    value,
  );
  if (!match) throw new Error(`unreadable LongMemEval date "${value}"`);
  const [, year, month, day, hour, minute] = match.map(Number);
  return new Date(Date.UTC(year, month - 1, day, hour, minute)).toISOString();
}

// 1. One instance per question: the largest haystack read for it, refused above the _s size.
const byId = new Map();
for (const path of haystacks)
  for (const item of instances(path)) {
    const known = byId.get(item.question_id);
    if (
      !known ||
      item.haystack_sessions.length > known.haystack_sessions.length
    )
      byId.set(item.question_id, item);
  }
const items = [...byId.values()].sort((a, b) =>
  a.question_id.localeCompare(b.question_id),
);
const tooLarge = items.filter(
  (item) => item.haystack_sessions.length > MAX_S_SESSIONS,
);
if (tooLarge.length > 0)
  throw new Error(
    `${tooLarge.length} questions have haystacks of more than ${MAX_S_SESSIONS} sessions (${tooLarge[0].question_id}: ${tooLarge[0].haystack_sessions.length}): that is the _m split; pass the _s one`,
  );

// 2. Sessions stored once: the same id must carry the same turns and marks in every haystack.
const sessions = [];
const indexOf = new Map();
let listed = 0;
function sessionIndex(id, turns) {
  const shaped = {
    id,
    turns: turns.map((turn) => [turn.role, turn.content ?? ""]),
  };
  const answerTurns = turns.flatMap((turn, at) =>
    turn.has_answer === true ? [at] : [],
  );
  if (answerTurns.length > 0) shaped.answerTurns = answerTurns;
  const known = indexOf.get(id);
  if (known !== undefined) {
    if (JSON.stringify(sessions[known]) !== JSON.stringify(shaped))
      throw new Error(
        `session ${id} differs between two haystacks; this file format stores it once`,
      );
    return known;
  }
  indexOf.set(id, sessions.length);
  sessions.push(shaped);
  return sessions.length - 1;
}
const questions = items.map((item) => {
  listed += item.haystack_sessions.length;
  return {
    id: item.question_id,
    type: item.question_type,
    question: item.question,
    answer: String(item.answer),
    date: parseDate(item.question_date),
    answerSessions: item.answer_session_ids,
    haystack: item.haystack_sessions.map((turns, at) =>
      sessionIndex(item.haystack_session_ids[at], turns),
    ),
    dates: item.haystack_dates.map(parseDate),
  };
});

const turns = sessions.reduce((sum, session) => sum + session.turns.length, 0);
const data = {
  source: {
    dataset:
      "LongMemEval, _s split (Wu et al., ICLR 2025), MIT licence, Copyright (c) 2024 Di Wu",
    from: source,
    derivedBy: "bench/recall-quality/derive-longmemeval-s.mjs",
    questions: questions.length,
    sessions: sessions.length,
    haystackSessions: listed,
    turns,
  },
  sessions,
  questions,
};
const json = JSON.stringify(data);
const bytes = brotliCompressSync(json, {
  params: {
    [constants.BROTLI_PARAM_QUALITY]: quality,
    [constants.BROTLI_PARAM_LGWIN]: 24,
    [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
  },
});
writeFileSync(out, bytes);
console.log(
  `wrote ${out}: ${questions.length} questions, ${listed.toLocaleString("en")} haystack sessions of which ${sessions.length.toLocaleString("en")} distinct (each stored once), ${turns.toLocaleString("en")} turns; ${(json.length / 1e6).toFixed(1)} MB of JSON, ${bytes.length.toLocaleString("en")} bytes compressed (${(bytes.length / 1e6).toFixed(2)} MB); SHA-256 ${createHash("sha256").update(bytes).digest("hex")}`,
);
