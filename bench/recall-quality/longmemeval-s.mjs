// LongMemEval-S as its paper runs retrieval: every question searched over its own haystack of
// about 50 sessions (github.com/xiaowu0162/LongMemEval, src/retrieval/run_retrieval.py), beside
// the pooled history of bench/recall-quality.mjs. The data is not in this repository: derive it
// with derive-longmemeval-s.mjs from the released `_s` file and point ARBOR_LONGMEMEVAL_S at it.
//
// What is searched, as in the paper: the user turns of the haystack (its retrieval indexes user
// turns only, and scores a turn as evidence when LongMemEval marks it `has_answer` in one of the
// question's answer sessions). Scored questions are those the paper scores: not an abstention
// (`_abs`) and with at least one such turn (418 of 500; most single-session-assistant questions
// have their answer in an assistant turn and drop out). For each question, a fresh SQLite
// database in memory (`openSqlite(":memory:")`, a `SessionManager` over it): one session per
// haystack session, one message per user turn at the session's date plus a second per turn, then
// `manager.search(question, { mode, limit: 50, now: <question date> })`. The turn ranking gives
// the turn-level scores; the same ranking read as sessions (each at its first turn) the
// session-level ones. Beside it, in the same run and over the same haystack, a plain SQLite FTS5
// BM25 (OR of the question's words, porter): once over the turns, once over one document per
// session (its user turns joined), the paper's session key.
//
// Runs from bench/recall-quality.mjs when ARBOR_LONGMEMEVAL_S is set, or alone after a build:
// `ARBOR_LONGMEMEVAL_S=<file> node bench/recall-quality/longmemeval-s.mjs`.
// ARBOR_LONGMEMEVAL_S_MODES (default "text,hybrid") picks Arbor's modes; hybrid and semantic run
// once per embedder. ARBOR_RECALL_QUESTIONS=odd|even runs one half of the questions (for tuning
// on the odd half); ARBOR_LONGMEMEVAL_S_FIRST=<n> the first n scored questions (a quick look).
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { SessionManager } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import { fts5Baseline } from "./baseline.mjs";
import { percentile } from "./metrics.mjs";
import {
  loadLongMemEvalS,
  originalTurn,
  sessionOfTurn,
} from "./longmemeval-s-data.mjs";
import {
  MEASURES,
  retrievalScores,
  RetrievalTally,
  sessionRanking,
  sessionScoresOfTurns,
} from "./longmemeval-s-metrics.mjs";

export const LONGMEMEVAL_S_ENV = "ARBOR_LONGMEMEVAL_S";
/** Turns each search returns: enough to read 10 distinct sessions off the turn ranking. */
const LIMIT = 50;
const MODES = ["text", "semantic", "hybrid"];

/**
 * Runs the LongMemEval-S tables when ARBOR_LONGMEMEVAL_S names the derived file, and says how to
 * get it when it does not. `embedders` are the pooled run's (label, name, model, dimensions,
 * embed); the semantic and hybrid rows run once per embedder.
 */
export async function longMemEvalS({ embedders, outDir }) {
  const file = process.env[LONGMEMEVAL_S_ENV];
  if (!file) {
    console.log(
      `\nLongMemEval-S: not run: set ${LONGMEMEVAL_S_ENV}=<file> to the file bench/recall-quality/derive-longmemeval-s.mjs makes from LongMemEval's _s split (docs/search.md#longmemeval-s-as-published)`,
    );
    return null;
  }
  if (!existsSync(file))
    throw new Error(
      `${LONGMEMEVAL_S_ENV}=${file}: no such file (make it with bench/recall-quality/derive-longmemeval-s.mjs)`,
    );
  const modes = (process.env.ARBOR_LONGMEMEVAL_S_MODES ?? "text,hybrid")
    .split(",")
    .filter(Boolean);
  for (const mode of modes)
    if (!MODES.includes(mode))
      throw new Error(
        `ARBOR_LONGMEMEVAL_S_MODES: unknown mode "${mode}" (text, semantic, hybrid)`,
      );
  const half = process.env.ARBOR_RECALL_QUESTIONS ?? "all";
  if (!["all", "odd", "even"].includes(half))
    throw new Error(
      `ARBOR_RECALL_QUESTIONS must be all, odd or even, got ${JSON.stringify(half)}`,
    );
  const first = Number(process.env.ARBOR_LONGMEMEVAL_S_FIRST ?? Infinity);

  const started = performance.now();
  const data = loadLongMemEvalS(file);
  const questions = data.questions
    .filter((q) => q.scored && (half === "all" || q.half === half))
    .slice(0, first);
  console.log(
    `\nLongMemEval-S: ${data.questions.length} questions of the _s split (${data.source.sessions.toLocaleString("en")} distinct sessions, ${data.bytes.toLocaleString("en")} bytes compressed, SHA-256 ${data.sha256.slice(0, 16)}…; MIT, Copyright (c) 2024 Di Wu), ${data.questions.filter((q) => q.scored).length} scored as the paper scores them; searching ${questions.length}${half === "all" ? "" : ` (${half} ids)`}, each over its own haystack's user turns`,
  );

  // The systems: Arbor's modes on stores with each embedder (text once, on the first store), and
  // the two BM25 baselines. A store without embeddings serves text when no other mode is asked.
  const wanted = modes.filter((mode) => mode !== "text");
  const targets = wanted.length > 0 ? embedders : [null];
  const systems = [];
  targets.forEach((embedder, store) => {
    if (store === 0 && modes.includes("text"))
      systems.push({ name: "Arbor text", store, mode: "text" });
    for (const mode of wanted)
      systems.push({ name: `Arbor ${mode} (${embedder.label})`, store, mode });
  });
  systems.push({ name: "FTS5 BM25 over turns", baseline: "turns" });
  systems.push({ name: "FTS5 BM25 over sessions", baseline: "sessions" });

  const tally = new RetrievalTally();
  const times = new Map(systems.map((system) => [system.name, []]));
  let writeMs = 0;
  let lastReport = performance.now();
  for (const [done, question] of questions.entries()) {
    if (performance.now() - lastReport > 30_000) {
      lastReport = performance.now();
      console.log(
        `LongMemEval-S: searched ${done} of ${questions.length} questions`,
      );
    }
    const haystack = data.haystackOf(question);
    const writeStart = performance.now();
    const stores = [];
    for (const embedder of targets)
      stores.push(await writeHaystack(haystack, embedder));
    writeMs += performance.now() - writeStart;
    const turnsBm25 = fts5Baseline();
    turnsBm25.add(
      null,
      haystack.flatMap((session) => session.turns),
    );
    const sessionsBm25 = fts5Baseline();
    sessionsBm25.add(
      null,
      haystack.map((session) => ({
        id: session.key,
        text: session.turns.map((turn) => turn.text).join(" "),
      })),
    );

    for (const system of systems) {
      const searchStart = performance.now();
      let turns = null;
      let sessions;
      if (system.baseline === "sessions")
        sessions = sessionRanking(
          sessionsBm25.search(null, question.question, LIMIT),
          sessionOfTurn,
        );
      else {
        turns =
          system.baseline === "turns"
            ? turnsBm25.search(null, question.question, LIMIT)
            : (
                await stores[system.store].search(question.question, {
                  mode: system.mode,
                  limit: LIMIT,
                  now: question.date,
                })
              )
                .filter((hit) => hit.kind !== "summary")
                .map((hit) => hit.id);
        turns = turns.map(originalTurn);
      }
      times.get(system.name).push(performance.now() - searchStart);
      const scores = turns
        ? {
            session: sessionScoresOfTurns(
              turns,
              question.evidenceTurns,
              question.evidenceSessions,
              sessionOfTurn,
            ),
            turn: retrievalScores(turns, question.evidenceTurns),
          }
        : { session: retrievalScores(sessions, question.evidenceSessions) };
      for (const group of ["all", question.half, `type:${question.type}`])
        for (const level of ["session", "turn"])
          if (scores[level])
            tally.add(`${system.name}|${level}|${group}`, scores[level]);
    }
    turnsBm25.close();
    sessionsBm25.close();
    for (const store of stores) store.close();
  }

  const report = printTables({
    systems,
    tally,
    times,
    questions,
    half,
  });
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `\nLongMemEval-S: done in ${seconds.toFixed(0)} s (writing the haystacks ${(writeMs / 1000).toFixed(0)} s)`,
  );
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    join(outDir, "recall-quality-longmemeval-s.json"),
    JSON.stringify(
      {
        at: new Date().toISOString(),
        node: process.version,
        data: {
          file,
          bytes: data.bytes,
          sha256: data.sha256,
          source: data.source,
        },
        questions: questions.length,
        half,
        limit: LIMIT,
        embedders: embedders.map(({ label, name }) => ({ label, name })),
        seconds,
        ...report,
      },
      null,
      2,
    ),
  );
  return report;
}

// --- Internal helpers ---

/** A fresh in-memory store holding the haystack, searched with `search()`, dropped by `close()`. */
async function writeHaystack(haystack, embedder) {
  const db = openSqlite(":memory:");
  const bare = SessionManager.create(db);
  const manager = embedder
    ? bare.withEmbeddings(embedder.embed, {
        dimensions: embedder.dimensions,
        model: embedder.model,
      })
    : bare;
  if (embedder) await manager.flushEmbeddings();
  for (const session of haystack) {
    const { id } = await manager.create(session.name);
    const written = manager.getSession(id);
    let parentId = null;
    for (const turn of session.turns) {
      await written.importMessage(
        {
          id: turn.id,
          role: turn.role,
          parts: [{ type: "text", text: turn.text }],
        },
        { parentId, createdAt: turn.createdAt },
      );
      parentId = turn.id;
    }
  }
  if (embedder) await manager.flushEmbeddings();
  return {
    search: (query, options) => manager.search(query, options),
    close: () => db.close(),
  };
}

/** Prints the tables (all questions, the even half, by type) and returns their rows. */
function printTables({ systems, tally, times, questions, half }) {
  const pct = (value) => (value === undefined ? "–" : (value * 100).toFixed(1));
  const groups = half === "all" ? ["all", "even"] : [half];
  const rows = [];
  for (const group of groups) {
    const count = questions.filter(
      (q) => group === "all" || q.half === group,
    ).length;
    for (const level of ["session", "turn"]) {
      console.log(
        `\nLongMemEval-S, ${level} level, ${group === "all" ? "all" : `${group} ids,`} ${count} questions (%):\n`,
      );
      console.log(`| System | ${MEASURES.join(" | ")} | p50 / p95 ms |`);
      console.log(`|---|${"---|".repeat(MEASURES.length)}---|`);
      for (const { name } of systems) {
        const mean = tally.mean(`${name}|${level}|${group}`);
        if (!mean) continue;
        const ms = times.get(name);
        rows.push({ system: name, group, level, ...mean });
        console.log(
          `| ${name} | ${MEASURES.map((m) => pct(mean[m])).join(" | ")} | ${percentile(ms, 0.5).toFixed(2)} / ${percentile(ms, 0.95).toFixed(2)} |`,
        );
      }
    }
  }
  const types = [...new Set(questions.map((q) => q.type))].sort();
  console.log(
    `\nBy question type: session recall_any@5 / turn recall_all@10 (%) (questions: ${types.map((type) => `${type} ${questions.filter((q) => q.type === type).length}`).join(", ")})\n`,
  );
  console.log(`| System | ${types.join(" | ")} |`);
  console.log(`|---|${"---|".repeat(types.length)}`);
  for (const { name } of systems)
    console.log(
      `| ${name} | ${types
        .map((type) => {
          const session = tally.mean(`${name}|session|type:${type}`) ?? {};
          const turn = tally.mean(`${name}|turn|type:${type}`) ?? {};
          return `${pct(session["recall_any@5"])} / ${pct(turn["recall_all@10"])}`;
        })
        .join(" | ")} |`,
    );
  const targets = checkTargets(systems, tally, groups);
  for (const line of targets.lines) console.log(line);
  return { rows, targets: targets.results };
}

/**
 * The targets docs/search.md names: at session level Arbor text's recall_any@5 at least 0.90 and
 * above both BM25 rows; at turn level its recall@10 above BM25 over turns (recall_all@10, the
 * paper's, and the share of evidence turns).
 */
function checkTargets(systems, tally, groups) {
  const lines = ["\nLongMemEval-S targets (Arbor text):"];
  const results = [];
  if (!systems.some((system) => system.name === "Arbor text"))
    return { lines: [...lines, "  not checked: text mode not run"], results };
  for (const group of groups) {
    const get = (name, level, measure) =>
      tally.mean(`${name}|${level}|${group}`)?.[measure];
    const text = get("Arbor text", "session", "recall_any@5");
    const bm25 = Math.max(
      get("FTS5 BM25 over turns", "session", "recall_any@5"),
      get("FTS5 BM25 over sessions", "session", "recall_any@5"),
    );
    const checks = [
      [
        `session recall_any@5 ${(text * 100).toFixed(1)}% ≥ 90% and above BM25's best ${(bm25 * 100).toFixed(1)}%`,
        text >= 0.9 && text > bm25,
      ],
      ...["recall_all@10", "recall@10"].map((measure) => {
        const ours = get("Arbor text", "turn", measure);
        const theirs = get("FTS5 BM25 over turns", "turn", measure);
        return [
          `turn ${measure} ${(ours * 100).toFixed(1)}% above BM25's ${(theirs * 100).toFixed(1)}%`,
          ours > theirs,
        ];
      }),
    ];
    for (const [what, met] of checks) {
      lines.push(`  ${group}: ${what}: ${met ? "met" : "NOT met"}`);
      results.push({ group, what, met });
    }
  }
  return { lines, results };
}

// Alone: `ARBOR_LONGMEMEVAL_S=<file> node bench/recall-quality/longmemeval-s.mjs`, with the
// hashed embedder (and GloVe vectors when installed) for the semantic and hybrid rows.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { DIMENSIONS, EMBEDDER_NAME, hashedEmbedder, wordVectorEmbedder } =
    await import("./embedder.mjs");
  const wordVectors = wordVectorEmbedder();
  await longMemEvalS({
    embedders: [
      {
        label: "hashed",
        name: EMBEDDER_NAME,
        model: "hashed-ngram-512",
        dimensions: DIMENSIONS,
        embed: hashedEmbedder,
      },
      ...(wordVectors ? [{ label: "GloVe", ...wordVectors }] : []),
    ],
    outDir: join(process.cwd(), ".bench"),
  });
}
