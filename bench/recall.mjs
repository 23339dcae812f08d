// Recall on 50,000 messages (docs/search.md): what embeddings cost Arbor (the queue on append,
// the background embedding into the store) and what each search mode costs, per backend. The
// embedder is the fake deterministic one of arbor-memory/testing at 384 dimensions (the size of
// small sentence models), so the figures are Arbor's own work: a real model adds its own time
// per batch on top. Runs alone: `node bench/recall.mjs` (after a build); PostgreSQL with
// ARBOR_BENCH_PG_URL (and pgvector too when the server has the extension).
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { SessionManager } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import { fakeEmbedder } from "arbor-memory/testing";
import {
  postgresStore,
  freshFile,
  median,
  runAlone,
  scratch,
  throwawayDatabase,
} from "./standalone.mjs";
import { sparseMessage } from "./workload.mjs";

const COUNT = 50_000;
const DIMENSIONS = 384;
const QUERY = "deploy friday";
const RUNS = 9;

/** Every backend's rows go to `record`. */
export async function runRecall(dir, record) {
  const folder = scratch(dir, "recall");
  for (const sqliteVec of [true, false]) {
    const db = openSqlite(freshFile(join(folder, `recall-${sqliteVec}.db`)), {
      sqliteVec,
    });
    await measure(
      sqliteVec ? "sqlite+vec" : "sqlite exact",
      SessionManager.create(db),
      record,
    );
    db.close();
  }
  await measure("memory", SessionManager.inMemory(), record);
  const pgUrl = process.env.ARBOR_BENCH_PG_URL;
  // The exact scan, then pgvector when the server has it (CREATE EXTENSION in its database).
  for (const engine of pgUrl ? ["exact", "pgvector"] : []) {
    const database = await throwawayDatabase(pgUrl, "arbor_bench_recall");
    try {
      if (engine === "pgvector") {
        const { rows } = await database.pool.query(
          "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'",
        );
        if (rows.length === 0) continue;
        await database.pool.query("CREATE EXTENSION vector");
      }
      const { applyPostgresSchema } = await import("arbor-memory/session");
      await applyPostgresSchema(database.pool);
      await measure(
        `postgres ${engine}`,
        SessionManager.create(await postgresStore(database.pool)),
        record,
      );
    } finally {
      await database.drop();
    }
  }
}

async function measure(backend, manager, record) {
  const { id } = await manager.create("recall");
  const session = manager.getSession(id);
  // Two branches of 25,000 from the root: the second is abandoned, the first active.
  const half = COUNT / 2;
  let start = performance.now();
  for (let i = 0; i < COUNT; i++) {
    const parent = i === 0 ? null : i === half ? "m0" : undefined;
    await session.appendMessage(sparseMessage(i), parent);
  }
  const plainMs = performance.now() - start;
  record(
    `append ${COUNT.toLocaleString("en")} (no embeddings)`,
    backend,
    COUNT / (plainMs / 1000),
    "msg/s",
  );
  await session.switchBranch(`m${half - 1}`);
  await session.search(QUERY); // the FTS catch-up, out of the timings
  const plain = await median(RUNS, () => session.search(QUERY, { limit: 20 }));
  record(
    "search plain text (no options)",
    backend,
    plain.ms,
    "ms",
    `median of ${RUNS}, ${plain.value.length} results`,
  );

  // Embeddings switched on over the existing history: the backfill queues all 50,000.
  session.withEmbeddings(fakeEmbedder({ dimensions: DIMENSIONS }), {
    model: `fake-${DIMENSIONS}`,
    batchSize: 256,
  });
  start = performance.now();
  await session.flushEmbeddings();
  const embedMs = performance.now() - start;
  record(
    `embed ${COUNT.toLocaleString("en")} (fake, ${DIMENSIONS}d)`,
    backend,
    COUNT / (embedMs / 1000),
    "msg/s",
    `${(embedMs / 1000).toFixed(1)} s: queue, read, embed, store, dequeue`,
  );
  for (const [mode, scope] of [
    ["text", "session"],
    ["semantic", "session"],
    ["hybrid", "session"],
    ["semantic", "branch"],
    ["hybrid", "branch"],
  ]) {
    const { ms, value } = await median(RUNS, () =>
      session.search(QUERY, { mode, scope, limit: 20 }),
    );
    record(
      `search ${mode} (${scope})`,
      backend,
      ms,
      "ms",
      `median of ${RUNS}, ${value.length} results`,
    );
  }
  // Explained results need the active path's ids. Repeated searches above reuse the kept set;
  // here each search follows a write that changes the store (the branch pointer is written
  // again), so every one walks the 25,000-message branch afresh.
  const walks = [];
  let walked = [];
  for (let i = 0; i < RUNS; i++) {
    await session.switchBranch(`m${half - 1}`);
    const t = performance.now();
    walked = await session.search(QUERY, { mode: "text", limit: 20 });
    walks.push(performance.now() - t);
  }
  walks.sort((a, b) => a - b);
  record(
    "search text (session), after a write",
    backend,
    walks[walks.length >> 1],
    "ms",
    `median of ${RUNS}, ${walked.length} results; walks the active path`,
  );
  // Appends with embeddings on: the queue row rides in the append's write; the worker embeds
  // in the background meanwhile.
  const more = COUNT / 10;
  start = performance.now();
  for (let i = COUNT; i < COUNT + more; i++)
    await session.appendMessage(sparseMessage(i));
  const onMs = performance.now() - start;
  await session.flushEmbeddings();
  record(
    `append ${more.toLocaleString("en")} more (embeddings on)`,
    backend,
    more / (onMs / 1000),
    "msg/s",
    "queue row in the same write, embedding in the background",
  );
}

await runAlone(import.meta.url, "recall", runRecall);
