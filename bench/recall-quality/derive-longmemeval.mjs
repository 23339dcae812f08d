// Builds the committed recall-quality dataset, bench/recall-quality/data/longmemeval-pooled.json.br,
// from LongMemEval (Wu et al., ICLR 2025, "LongMemEval: Benchmarking Chat Assistants on
// Long-Term Interactive Memory", arXiv:2410.10813; MIT licence, see data/LICENSE-LongMemEval).
//
//   node bench/recall-quality/derive-longmemeval.mjs --oracle <path> --haystack <path> [--distractors 600]
//
// <path> is a LongMemEval file (a JSON array of instances: longmemeval_oracle.json,
// longmemeval_s_cleaned.json) or a folder of JSON files holding one instance (or an array) each,
// as some copies republish it one question per file.
//
// What it writes: ONE pooled memory, as one user's long history would be. Every evidence session
// of all 500 questions (from the oracle file: the sessions that answer each question, with the
// `has_answer` marks on the turns that hold the answer) plus `--distractors` sessions drawn from
// the questions' haystacks (the _s file; chosen by a hash of the session id, so the choice is
// fixed), each session with its real date. Every question is then searched across all of it, so
// the other questions' sessions are distractors too. A question's evidence is the turns marked
// `has_answer` in its own answer sessions; the abstention questions (`_abs`) mostly have none and
// are kept in the file but not scored by the benchmark.
//
// Output (brotli-compressed JSON): `{ source, sessions: [{ id, date, turns: [[role, text]] }],
// questions: [{ id, type, question, answer, date, answerSessions, evidence: ["<session>:<turn>"] }] }`,
// sessions oldest first. Dates are ISO-8601; LongMemEval names no time zone, so they are read as UTC.
import { createHash } from "node:crypto";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants } from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));
export const POOLED_FILE = join(here, "data", "longmemeval-pooled.json.br");

const args = new Map();
for (let at = 2; at < process.argv.length; at += 2)
  args.set(process.argv[at].replace(/^--/, ""), process.argv[at + 1]);
if (!args.has("oracle") || !args.has("haystack")) {
  console.error(
    "usage: node bench/recall-quality/derive-longmemeval.mjs --oracle <file|folder> --haystack <file|folder> [--distractors 600] [--source <text>]",
  );
  process.exit(2);
}
const DISTRACTORS = Number(args.get("distractors") ?? 600);

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
    return Array.isArray(data) ? data : [data];
  });
}

/** "2023/05/21 (Sun) 19:50" as ISO-8601 UTC. */
export function parseDate(value) {
  const match = /^(\d{4})\/(\d{2})\/(\d{2}) \(\w+\) (\d{2}):(\d{2})$/.exec(
    value,
  );
  if (!match) throw new Error(`unreadable LongMemEval date "${value}"`);
  const [, year, month, day, hour, minute] = match.map(Number);
  return new Date(Date.UTC(year, month - 1, day, hour, minute)).toISOString();
}

const sessions = new Map();
const conflicts = { date: 0, content: 0 };
function addSession(id, date, turns) {
  const shaped = turns.map((turn) => [turn.role, turn.content ?? ""]);
  const known = sessions.get(id);
  if (known) {
    if (known.date !== date) conflicts.date++;
    if (JSON.stringify(known.turns) !== JSON.stringify(shaped))
      conflicts.content++;
    return;
  }
  sessions.set(id, { id, date, turns: shaped });
}

// 1. The oracle file: every question, its evidence sessions and its evidence turns.
const questions = [];
for (const item of instances(args.get("oracle"))) {
  const evidence = [];
  item.haystack_sessions.forEach((turns, index) => {
    const id = item.haystack_session_ids[index];
    addSession(id, parseDate(item.haystack_dates[index]), turns);
    if (!item.answer_session_ids.includes(id)) return;
    turns.forEach((turn, at) => {
      if (turn.has_answer === true) evidence.push(`${id}:${at}`);
    });
  });
  questions.push({
    id: item.question_id,
    type: item.question_type,
    question: item.question,
    answer: String(item.answer),
    date: parseDate(item.question_date),
    answerSessions: item.answer_session_ids,
    evidence,
  });
}
const evidenceSessions = sessions.size;

// 2. Distractors: sessions of the questions' haystacks that answer no question, the first
// `DISTRACTORS` by the SHA-256 of their id (a fixed, arbitrary choice).
const hash = (text) => createHash("sha256").update(text).digest("hex");
const candidates = new Map();
for (const item of instances(args.get("haystack")))
  item.haystack_sessions.forEach((turns, index) => {
    const id = item.haystack_session_ids[index];
    if (sessions.has(id) || candidates.has(id) || turns.length === 0) return;
    candidates.set(id, { date: parseDate(item.haystack_dates[index]), turns });
  });
const chosen = [...candidates.keys()]
  .sort((a, b) => (hash(a) < hash(b) ? -1 : 1))
  .slice(0, DISTRACTORS);
for (const id of chosen)
  addSession(id, candidates.get(id).date, candidates.get(id).turns);

const pooled = {
  source: {
    dataset:
      "LongMemEval (Wu et al., ICLR 2025), MIT licence, Copyright (c) 2024 Di Wu",
    from: args.get("source") ?? "",
    derivedBy: "bench/recall-quality/derive-longmemeval.mjs",
    evidenceSessions,
    distractorSessions: chosen.length,
    conflicts,
  },
  sessions: [...sessions.values()].sort(
    (a, b) => a.date.localeCompare(b.date) || a.id.localeCompare(b.id),
  ),
  questions,
};
const json = JSON.stringify(pooled);
const bytes = brotliCompressSync(json, {
  params: {
    [constants.BROTLI_PARAM_QUALITY]: 11,
    [constants.BROTLI_PARAM_LGWIN]: 24,
  },
});
mkdirSync(dirname(POOLED_FILE), { recursive: true });
writeFileSync(POOLED_FILE, bytes);
const turns = pooled.sessions.reduce((sum, s) => sum + s.turns.length, 0);
console.log(
  `wrote ${POOLED_FILE}: ${questions.length} questions (${questions.filter((q) => q.evidence.length > 0).length} with evidence turns), ${pooled.sessions.length} sessions (${evidenceSessions} evidence, ${chosen.length} distractors), ${turns} turns; ${(json.length / 1e6).toFixed(1)} MB of JSON, ${(bytes.length / 1e6).toFixed(2)} MB compressed; SHA-256 ${hash(bytes)}; sessions seen twice with another date ${conflicts.date}, with other turns ${conflicts.content}`,
);
