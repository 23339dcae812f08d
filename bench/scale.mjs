// The scale benchmark: one database holding 10,000 sessions of 100 messages (1,000,000 messages),
// on a SQLite file and on PostgreSQL, read through SessionManager: list pages, cross-session
// search (one word and two words), getHistory of a random session, and the bytes on disk per
// byte of stored message JSON. Besides the one- and two-word searches, question-length ones (5–10
// words, as a model writes them: a question word, common words, topic words). Run by
// bench/run.mjs, or alone: `node bench/scale.mjs` (after `npm run build`; PostgreSQL with
// ARBOR_TEST_PG_URL) prints its rows.
//
// How the database is filled. Appending 1,000,000 messages one by one takes many minutes, so
// SQLite gets 9,990 sessions through `manager.importSession()` (the snapshot import: public API,
// one transaction per session) and PostgreSQL gets them through bulk SQL written to Arbor's
// schema (rows exactly as its import statement writes them: JSON content, normalized search
// text, insertion order). The last 10 sessions are appended message by message (`appendAll()`
// when the Session has it), timed. Every read afterwards goes through the public API and checks
// what it gets: the whole registry through the list cursor, 20 hits per search, 100 messages
// per history.
//
// Hybrid search (text and vectors fused, the default mode once `withEmbeddings()` is on) is
// measured on smaller stores of the same sessions (ARBOR_BENCH_SCALE_HYBRID, messages, default
// 10,000 and 100,000) with the recall benchmark's hashed stand-in embedder: every vector ranking
// is an exact scan (no approximate nearest-neighbour index), so its cost grows with the store and
// 1,000,000 messages is out of its reach. ARBOR_BENCH_SCALE_KEEP=1 keeps the 1,000,000-message
// SQLite file and PostgreSQL database (their names are printed) for bench/scale-searches.mjs,
// which times the searches again on them (builds alternating, CPU time beside wall time).
// ARBOR_BENCH_SCALE_PARTS=hybrid runs the hybrid rows alone, =million the 1,000,000 alone.
import { statSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { applyPostgresSchema, SessionManager } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import {
  freshFile,
  postgresStore,
  runAlone,
  throwawayDatabase,
  time,
} from "./standalone.mjs";
import { DIMENSIONS, hashedEmbedder } from "./recall-quality/embedder.mjs";
import {
  FILLER_WORDS,
  scaleMessage,
  scaleSentence,
  TOPIC_WORDS,
} from "./workload.mjs";

/** 10,000 sessions; ARBOR_BENCH_SCALE_SESSIONS sets fewer for a quick check of the script. */
const SESSIONS = Number(process.env.ARBOR_BENCH_SCALE_SESSIONS) || 10_000;
const PER_SESSION = 100;
/** Sessions written through the append path (timed); the others are imported or bulk-inserted. */
const APPENDED = 10;
const PAGE = 50;
const QUERIES = 50;
const LIMIT = 20;
const HISTORY_READS = 50;
/** The target this benchmark reports against: p95 of a cross-session search. */
const TARGET_P95_MS = 20;
/** Sessions per bulk statement on PostgreSQL (10,000 rows). */
const BULK_SESSIONS = 100;
const BASE_TIME = Date.UTC(2026, 0, 1);
const TOTAL = (SESSIONS * PER_SESSION).toLocaleString("en");
/** Which backends run: ARBOR_BENCH_SCALE_BACKENDS=sqlite or =postgres runs one alone. */
const BACKENDS = (
  process.env.ARBOR_BENCH_SCALE_BACKENDS ?? "sqlite,postgres"
).split(",");
/** Store sizes (messages) of the hybrid rows; ARBOR_BENCH_SCALE_HYBRID=none skips them. */
const HYBRID_SIZES = (process.env.ARBOR_BENCH_SCALE_HYBRID ?? "10000,100000")
  .split(",")
  .map(Number)
  .filter((size) => size >= PER_SESSION);
/** ARBOR_BENCH_SCALE_PARTS=hybrid runs the hybrid rows alone (=million the 1,000,000 alone). */
const PARTS = (process.env.ARBOR_BENCH_SCALE_PARTS ?? "million,hybrid").split(
  ",",
);
/** Keep the 1,000,000-message databases after the run (ARBOR_BENCH_SCALE_KEEP=1). */
const KEEP = process.env.ARBOR_BENCH_SCALE_KEEP === "1";

/**
 * @param {string} dir scratch folder
 * @param {(workload: string, backend: string, value: number, unit: string, note?: string) => void} record
 */
export async function runScale(dir, record) {
  const queries = scaleQueries();
  // The true match counts are for the 1,000,000 rows' checks (about 20 s of counting).
  const started = performance.now();
  const matching = PARTS.includes("million") ? matchingShares(queries) : null;
  if (matching)
    console.log(
      `scale: counted the matches of ${queries.one.length + queries.two.length} queries in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  if (BACKENDS.includes("sqlite") && PARTS.includes("million"))
    await sqliteScale(dir, record, queries, matching);
  const url = process.env.ARBOR_TEST_PG_URL;
  if (BACKENDS.includes("postgres") && PARTS.includes("million")) {
    if (url) await postgresScale(url, record, queries, matching);
    else
      console.log(
        "scale: postgres skipped (set ARBOR_TEST_PG_URL, e.g. postgres://postgres@127.0.0.1:5432/postgres)",
      );
  }
  for (const size of PARTS.includes("hybrid") ? HYBRID_SIZES : []) {
    if (BACKENDS.includes("sqlite"))
      await sqliteHybrid(dir, record, queries, size);
    if (BACKENDS.includes("postgres") && url)
      await postgresHybrid(url, record, queries, size);
  }
}

// --- SQLite ---

async function sqliteScale(dir, record, queries, matching) {
  const backend = "sqlite file";
  const file = freshFile(join(dir, "scale.db"));
  const db = openSqlite(file);
  try {
    const manager = SessionManager.create(db);
    const ids = [];
    const imported = SESSIONS - APPENDED;
    const progress = fillProgress(backend, imported);
    const start = performance.now();
    for (let s = 0; s < imported; s++) {
      ids.push((await manager.importSession(snapshot(s))).id);
      progress(s + 1);
    }
    const seconds = (performance.now() - start) / 1000;
    record(
      `scale: import ${imported.toLocaleString("en")} sessions × ${PER_SESSION}`,
      backend,
      (imported * PER_SESSION) / seconds,
      "msg/s",
      `manager.importSession(), one call per session, ${seconds.toFixed(0)} s`,
    );
    await appendSessions(manager, ids, backend, record);
    const first = await time(() =>
      manager.search(queries.one[0], { limit: LIMIT }),
    );
    record(
      `scale: first search, ${TOTAL}`,
      backend,
      first.ms,
      "ms",
      `one-off: indexes the ${TOTAL} messages written since the last search`,
    );
    await measureReads(manager, ids, backend, record, queries, matching);
    // The floor of a ranked search: bare FTS5 statements on the same index, no joins, ids only.
    const statement = (order) =>
      db.database.prepare(
        `SELECT rowid FROM assistant_fts WHERE assistant_fts MATCH ? ORDER BY ${order} LIMIT ${LIMIT}`,
      );
    const fts = (words, operator = " ") =>
      words
        .split(" ")
        .map((word) => `"${word}"`)
        .join(operator);
    await rawSearches(record, "raw sqlite", queries, {
      ranked: (query) => statement("rank").all(fts(query)),
      newest: (query) => statement("rowid DESC").all(fts(query)),
      anyTerm: (query) => statement("rank").all(fts(query, " OR ")),
      what: "FTS5 MATCH, no joins",
    });
    const [{ bytes }] =
      db.sql`SELECT sum(length(CAST(content AS BLOB))) AS bytes FROM assistant_messages`;
    db.database.pragma("wal_checkpoint(TRUNCATE)");
    const onDisk = ["", "-wal"].reduce(
      (sum, suffix) => sum + fileSize(file + suffix),
      0,
    );
    recordSize(
      record,
      backend,
      onDisk,
      bytes,
      "file and WAL after a checkpoint",
    );
  } finally {
    db.close();
    if (KEEP) console.log(`scale: kept the SQLite file ${file}`);
    else freshFile(file);
  }
}

// --- PostgreSQL ---

async function postgresScale(serverUrl, record, queries, matching) {
  const backend = "postgres pool";
  const { pool, drop, url } = await throwawayDatabase(serverUrl, "arbor_scale");
  try {
    await applyPostgresSchema(pool);
    const manager = SessionManager.create(await postgresStore(pool));
    const ids = [];
    const inserted = SESSIONS - APPENDED;
    const progress = fillProgress(backend, inserted);
    const start = performance.now();
    for (let from = 0; from < inserted; from += BULK_SESSIONS) {
      const to = Math.min(inserted, from + BULK_SESSIONS);
      ids.push(...(await bulkInsert(pool, from, to)));
      progress(to);
    }
    const seconds = (performance.now() - start) / 1000;
    record(
      `scale: bulk insert ${inserted.toLocaleString("en")} sessions × ${PER_SESSION}`,
      backend,
      (inserted * PER_SESSION) / seconds,
      "msg/s",
      `bulk SQL in Arbor's schema, ${BULK_SESSIONS * PER_SESSION} rows per statement, ${seconds.toFixed(0)} s`,
    );
    await appendSessions(manager, ids, backend, record);
    // What autovacuum does after a bulk load: planner statistics, GIN pending list merged.
    const vacuum = await time(() => pool.query("VACUUM ANALYZE"));
    console.log(
      `scale: postgres VACUUM ANALYZE after the load took ${(vacuum.ms / 1000).toFixed(1)} s`,
    );
    const first = await time(() =>
      manager.search(queries.one[0], { limit: LIMIT }),
    );
    record(
      `scale: first search, ${TOTAL}`,
      backend,
      first.ms,
      "ms",
      "first query after the load and VACUUM ANALYZE",
    );
    await measureReads(manager, ids, backend, record, queries, matching);
    const tsquery = (words, operator) =>
      words
        .split(" ")
        .map((_, k) => `phraseto_tsquery('english', $${k + 1})`)
        .join(operator);
    const search =
      (order, operator = " && ") =>
      (words) =>
        pool.query(
          `SELECT seq FROM assistant_messages WHERE content_tsv @@ (${tsquery(words, operator)})
          ORDER BY ${order.replace("QUERY", tsquery(words, operator))} LIMIT ${LIMIT}`,
          words.split(" "),
        );
    await rawSearches(record, "raw postgres", queries, {
      ranked: search("ts_rank(content_tsv, QUERY) DESC"),
      newest: search("seq DESC"),
      anyTerm: search("ts_rank(content_tsv, QUERY) DESC", " || "),
      what: "GIN match, no joins",
    });
    const {
      rows: [{ bytes, size }],
    } = await pool.query(
      `SELECT (SELECT sum(octet_length(content)) FROM assistant_messages)::bigint AS bytes,
        pg_database_size(current_database()) AS size`,
    );
    recordSize(
      record,
      backend,
      Number(size),
      Number(bytes),
      "pg_database_size",
    );
  } finally {
    if (KEEP) {
      await pool.end();
      console.log(`scale: kept the PostgreSQL database ${url}`);
    } else await drop();
  }
}

/** Sessions `from` … `to - 1`: their registry rows, then their messages, each in one statement. */
async function bulkInsert(pool, from, to) {
  const sessions = [];
  const messages = [];
  for (let s = from; s < to; s++) {
    const { info, records } = sessionRecords(s);
    sessions.push(info);
    for (const { message, parentId, createdAt } of records) {
      messages.push({
        ord: messages.length,
        id: message.id,
        session_id: info.id,
        parent_id: parentId,
        role: message.role,
        content: JSON.stringify(message),
        // Arbor's normalized search text: lower case, Latin diacritics folded. The vocabulary is
        // plain lower-case ASCII, so lower-casing is the whole normalization here.
        text_content: message.parts[0].text.toLowerCase(),
        created_at: createdAt,
      });
    }
  }
  await pool.query(
    `INSERT INTO assistant_sessions (id, name, created_at, updated_at)
    SELECT r.id, r.name, r.created_at::timestamptz, r.updated_at::timestamptz
    FROM json_to_recordset($1::json) AS r(id TEXT, name TEXT, created_at TEXT, updated_at TEXT)`,
    [JSON.stringify(sessions)],
  );
  await pool.query(
    `INSERT INTO assistant_messages (id, session_id, parent_id, role, content, text_content, created_at)
    SELECT r.id, r.session_id, r.parent_id, r.role, r.content, r.text_content, r.created_at::timestamptz
    FROM json_to_recordset($1::json)
      AS r(ord INTEGER, id TEXT, session_id TEXT, parent_id TEXT, role TEXT, content TEXT,
        text_content TEXT, created_at TEXT)
    ORDER BY r.ord`,
    [JSON.stringify(messages)],
  );
  return sessions.map((info) => info.id);
}

// --- Hybrid search, at the sizes an exact vector scan reaches ---

/** The name stored with the hashed stand-in's vectors. */
const HYBRID_MODEL = "hashed-ngram-512";

/** A SQLite file of `size` messages (the scale sessions) with the stand-in's vectors. */
async function sqliteHybrid(dir, record, queries, size) {
  const file = freshFile(join(dir, `scale-hybrid-${size}.db`));
  const db = openSqlite(file);
  try {
    const hybrid = withStandIn(SessionManager.create(db));
    // The embedding tables and their triggers first, so that every import is queued.
    await hybrid.flushEmbeddings();
    const start = performance.now();
    for (let s = 0; s < size / PER_SESSION; s++)
      await hybrid.importSession(snapshot(s));
    await hybrid.flushEmbeddings();
    const seconds = (performance.now() - start) / 1000;
    let engine = "an exact scan in JavaScript";
    try {
      db.database.prepare("SELECT vec_version()").get();
      engine = "sqlite-vec, an exact scan";
    } catch {
      // sqlite-vec not installed: the JavaScript scan.
    }
    await measureHybrid(record, "sqlite file", queries, size, {
      hybrid,
      text: SessionManager.create(db),
      note: `vectors by ${engine}; imported and embedded in ${seconds.toFixed(0)} s`,
    });
  } finally {
    db.close();
    freshFile(file);
  }
}

/** The same on PostgreSQL: bulk-inserted sessions, queued by the embedding triggers. */
async function postgresHybrid(serverUrl, record, queries, size) {
  const { pool, drop } = await throwawayDatabase(
    serverUrl,
    "arbor_scale_hybrid",
  );
  try {
    await applyPostgresSchema(pool);
    let engine = "an exact dot product in SQL";
    try {
      await pool.query("CREATE EXTENSION IF NOT EXISTS vector");
      engine = "pgvector's <#>, an exact scan";
    } catch {
      // No pgvector on this server: the SQL dot product.
    }
    const hybrid = withStandIn(
      SessionManager.create(await postgresStore(pool)),
    );
    await hybrid.flushEmbeddings();
    const start = performance.now();
    const sessions = size / PER_SESSION;
    for (let from = 0; from < sessions; from += BULK_SESSIONS)
      await bulkInsert(pool, from, Math.min(sessions, from + BULK_SESSIONS));
    await hybrid.flushEmbeddings();
    const seconds = (performance.now() - start) / 1000;
    await pool.query("VACUUM ANALYZE");
    await measureHybrid(record, "postgres pool", queries, size, {
      hybrid,
      text: SessionManager.create(await postgresStore(pool)),
      note: `vectors by ${engine}; inserted and embedded in ${seconds.toFixed(0)} s`,
    });
  } finally {
    await drop();
  }
}

/** `manager` with the recall benchmark's hashed stand-in embedder (not a neural model). */
function withStandIn(manager) {
  return manager.withEmbeddings(hashedEmbedder, {
    dimensions: DIMENSIONS,
    model: HYBRID_MODEL,
  });
}

/**
 * The question-length searches in hybrid mode (the default with embeddings) and as plain ranked
 * text on the same store, alternating query by query so both meet the same machine state.
 */
async function measureHybrid(
  record,
  backend,
  queries,
  size,
  { hybrid, text, note },
) {
  // Untimed: the first search of each catches the text index up and loads what it caches.
  await hybrid.search(queries.one[0], { limit: LIMIT });
  await text.search(queries.one[0], { limit: LIMIT });
  const hybridTimes = [];
  const textTimes = [];
  let semantic = 0;
  for (const query of queries.question) {
    const fused = await time(() => hybrid.search(query, { limit: LIMIT }));
    const plain = await time(() => text.search(query, { limit: LIMIT }));
    hybridTimes.push(fused.ms);
    textTimes.push(plain.ms);
    check(
      fused.value.length <= LIMIT &&
        fused.value.every((hit) => hit.matched !== undefined) &&
        plain.value.every((hit) => hit.matched === undefined),
      `search "${query}" at ${size}: expected hybrid hits (with \`matched\`) and plain text hits`,
    );
    if (fused.value.some((hit) => hit.matched.semantic)) semantic++;
  }
  const label = `scale: search ${size.toLocaleString("en")}, question`;
  const what = `${queries.question.length} queries, limit ${LIMIT}, alternating with the other row`;
  percentiles(
    record,
    `${label}, hybrid`,
    backend,
    hybridTimes,
    `${what}; hashed stand-in embedder, ${DIMENSIONS} dimensions; ${note}; ${semantic} of ${queries.question.length} had a vector match in their top ${LIMIT}; no approximate nearest-neighbour index`,
  );
  percentiles(
    record,
    `${label}, text`,
    backend,
    textTimes,
    `${what}; ranked text, same store, no embeddings`,
  );
}

// --- Shared by both backends ---

/** The last sessions, created and appended through the manager's sessions, timed. */
async function appendSessions(manager, ids, backend, record) {
  let method = "appendMessage()";
  const start = performance.now();
  for (let s = SESSIONS - APPENDED; s < SESSIONS; s++) {
    const info = await manager.create(`scale ${s}`);
    const session = manager.getSession(info.id);
    const messages = Array.from({ length: PER_SESSION }, (_, i) =>
      scaleMessage(s, i),
    );
    if (typeof session.appendAll === "function") {
      method = "appendAll()";
      await session.appendAll(messages);
    } else {
      for (const message of messages) await session.appendMessage(message);
    }
    ids.push(info.id);
  }
  const seconds = (performance.now() - start) / 1000;
  record(
    `scale: append ${APPENDED} sessions × ${PER_SESSION} at ${TOTAL}`,
    backend,
    (APPENDED * PER_SESSION) / seconds,
    "msg/s",
    `manager.create() + Session.${method}, one call per ${method === "appendAll()" ? "session" : "message"}`,
  );
}

async function measureReads(manager, ids, backend, record, queries, matching) {
  const managed = new Set(ids);
  // 1. The whole registry, page by page through the cursor.
  const pageTimes = [];
  const seen = new Set();
  let cursor;
  do {
    const { ms, value } = await time(() =>
      manager.listPage({ limit: PAGE, ...(cursor ? { cursor } : {}) }),
    );
    pageTimes.push(ms);
    for (const info of value.sessions) seen.add(info.id);
    cursor = value.nextCursor;
  } while (cursor);
  check(
    seen.size === SESSIONS && ids.every((id) => seen.has(id)),
    `list() returned ${seen.size} distinct sessions, expected ${SESSIONS}`,
  );
  percentiles(
    record,
    `scale: list page of ${PAGE}, ${SESSIONS.toLocaleString("en")} sessions`,
    backend,
    pageTimes,
    `${pageTimes.length} pages through the listPage() cursor`,
  );

  // 2. Cross-session search, limit 20.
  for (const [label, list, share] of [
    ["one word", queries.one, matching.one],
    ["two words", queries.two, matching.two],
  ]) {
    const times = [];
    for (const query of list) {
      const { ms, value } = await time(() =>
        manager.search(query, { limit: LIMIT }),
      );
      times.push(ms);
      check(
        value.length === Math.min(LIMIT, matching.counts.get(query)) &&
          value.every((hit) => managed.has(hit.sessionId)),
        `search "${query}" returned ${value.length} hits (expected ${Math.min(LIMIT, matching.counts.get(query))} from managed sessions)`,
      );
    }
    const p95 = percentile(times, 0.95);
    percentiles(
      record,
      `scale: search ${TOTAL}, ${label}`,
      backend,
      times,
      `${list.length} queries, limit ${LIMIT}; each matches ${share}`,
      `target p95 ≤ ${TARGET_P95_MS} ms: ${p95 <= TARGET_P95_MS ? "met" : "missed"}`,
    );
  }

  // 2b. Question-length searches: what a model writes. Their result counts depend on how search
  // treats a word missing from every message (today: every term is required, so none match), so
  // they are checked for their bounds and reported, not compared with a count.
  {
    const times = [];
    let answered = 0;
    for (const query of queries.question) {
      const { ms, value } = await time(() =>
        manager.search(query, { limit: LIMIT }),
      );
      times.push(ms);
      if (value.length > 0) answered++;
      check(
        value.length <= LIMIT &&
          value.every((hit) => managed.has(hit.sessionId)),
        `search "${query}" returned ${value.length} hits (at most ${LIMIT} from managed sessions expected)`,
      );
    }
    const p95 = percentile(times, 0.95);
    percentiles(
      record,
      `scale: search ${TOTAL}, question (5–10 words)`,
      backend,
      times,
      `${queries.question.length} queries, limit ${LIMIT}, e.g. "${queries.question[0]}"; ${answered} of ${queries.question.length} returned results`,
      `target p95 ≤ ${TARGET_P95_MS} ms: ${p95 <= TARGET_P95_MS ? "met" : "missed"}`,
    );
  }

  // 3. getHistory of random sessions (a fixed sequence, so runs compare).
  const times = [];
  let pick = 12345;
  for (let r = 0; r < HISTORY_READS; r++) {
    pick = (Math.imul(pick, 1103515245) + 12345) >>> 0;
    const id = ids[pick % ids.length];
    const { ms, value } = await time(() => manager.getHistory(id));
    times.push(ms);
    check(
      value.length === PER_SESSION &&
        value.at(-1)?.id === `m${PER_SESSION - 1}`,
      `getHistory(${id}) returned ${value.length} messages, expected ${PER_SESSION}`,
    );
  }
  percentiles(
    record,
    `scale: getHistory of ${PER_SESSION}, ${SESSIONS.toLocaleString("en")} sessions`,
    backend,
    times,
    `${HISTORY_READS} random sessions, each read once`,
  );
}

/**
 * The same queries as bare statements on the same index (ids only, no joins): the floor of a
 * ranked search, and of an unranked newest-first one, for comparison with Arbor's p50/p95.
 */
async function rawSearches(
  record,
  backend,
  queries,
  { ranked, newest, anyTerm, what },
) {
  for (const [label, list] of [
    ["one word", queries.one],
    ["two words", queries.two],
  ]) {
    const rankedTimes = [];
    const newestTimes = [];
    for (const query of list) {
      rankedTimes.push((await time(() => ranked(query))).ms);
      newestTimes.push((await time(() => newest(query))).ms);
    }
    percentiles(
      record,
      `scale: search ${TOTAL}, ${label}`,
      backend,
      rankedTimes,
      `bare ${what}, ranked top ${LIMIT}; unranked newest-first p50 ${percentile(newestTimes, 0.5).toFixed(1)} ms, p95 ${percentile(newestTimes, 0.95).toFixed(1)} ms`,
    );
  }
  // Every term required finds no question (its question word is in no message), so the floor
  // worth knowing for a question is the ranked OR of its terms: what ranked any-term search costs.
  const anyTimes = [];
  for (const query of queries.question)
    anyTimes.push((await time(() => anyTerm(query))).ms);
  percentiles(
    record,
    `scale: search ${TOTAL}, question (5–10 words)`,
    backend,
    anyTimes,
    `bare ${what}, OR of the terms, ranked top ${LIMIT}`,
  );
}

function recordSize(record, backend, onDisk, jsonBytes, what) {
  const mb = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;
  record(
    `scale: size per byte of message JSON`,
    backend,
    onDisk / jsonBytes,
    "×",
    `${what} ${mb(onDisk)} / JSON ${mb(jsonBytes)} (indexes included)`,
  );
}

/** Session `s` as a snapshot for `importSession()`: registry row times spread a minute apart. */
function snapshot(s) {
  const { info, records } = sessionRecords(s);
  return {
    format: "arbor.session",
    version: 1,
    sessionId: info.id,
    exportedAt: info.updated_at,
    messages: records,
    compactions: [],
    info,
  };
}

function sessionRecords(s) {
  const created = BASE_TIME + s * 60_000;
  const records = Array.from({ length: PER_SESSION }, (_, i) => ({
    message: scaleMessage(s, i),
    parentId: i === 0 ? null : `m${i - 1}`,
    createdAt: new Date(created + i * 500).toISOString(),
  }));
  const info = {
    id: `scale-${String(s).padStart(5, "0")}`,
    name: `scale ${s}`,
    parent_session_id: null,
    model: null,
    source: null,
    input_tokens: 0,
    output_tokens: 0,
    estimated_cost: 0,
    end_reason: null,
    created_at: new Date(created).toISOString(),
    updated_at: records.at(-1).createdAt,
  };
  return { info, records };
}

/** Question words: in no scale message, as a model's questions carry them. */
const QUESTION_WORDS = "what when where how did which who why".split(" ");

/**
 * 50 one-word and 50 two-word queries, all different, from the scale vocabulary; and 50
 * question-length ones of 5–10 words: a question word, then common words (each in a large share
 * of the messages) and 2–4 topic words, e.g. "what did we decide on the budget for the festival".
 */
export function scaleQueries() {
  const one = [];
  const two = [];
  const question = [];
  for (let k = 0; k < QUERIES; k++) {
    one.push(TOPIC_WORDS[(k * 6) % TOPIC_WORDS.length]);
    two.push(
      `${TOPIC_WORDS[(k * 6 + 1) % TOPIC_WORDS.length]} ${TOPIC_WORDS[(k * 6 + 163) % TOPIC_WORDS.length]}`,
    );
    const length = 5 + (k % 6);
    const topics = 2 + (k % 3);
    const words = [QUESTION_WORDS[k % QUESTION_WORDS.length]];
    for (let w = 0; words.length < length; w++) {
      const topicsLeft =
        topics - words.filter((word) => TOPIC_WORDS.includes(word)).length;
      const slotsLeft = length - words.length;
      words.push(
        topicsLeft >= slotsLeft || (w % 2 === 1 && topicsLeft > 0)
          ? TOPIC_WORDS[(k * 11 + w * 37 + 5) % TOPIC_WORDS.length]
          : FILLER_WORDS[(k * 7 + w * 3) % FILLER_WORDS.length],
      );
    }
    question.push(words.join(" "));
  }
  return { one, two, question };
}

/** The range of the share of messages each query matches (every word present), as text. */
function matchingShares(queries) {
  const counts = new Map();
  const pairs = queries.two.map((query) => query.split(" "));
  for (const query of [...queries.one, ...queries.two]) counts.set(query, 0);
  for (let s = 0; s < SESSIONS; s++) {
    for (let i = 0; i < PER_SESSION; i++) {
      const words = new Set(scaleSentence(s, i).slice(0, -1).split(" "));
      for (const word of queries.one)
        if (words.has(word)) counts.set(word, counts.get(word) + 1);
      for (let q = 0; q < pairs.length; q++)
        if (words.has(pairs[q][0]) && words.has(pairs[q][1]))
          counts.set(queries.two[q], counts.get(queries.two[q]) + 1);
    }
  }
  const range = (list) => {
    const shares = list.map(
      (query) => counts.get(query) / (SESSIONS * PER_SESSION),
    );
    const pct = (value) => `${(value * 100).toFixed(value < 0.01 ? 2 : 1)}%`;
    return `${pct(Math.min(...shares))}–${pct(Math.max(...shares))} of the messages`;
  };
  return { one: range(queries.one), two: range(queries.two), counts };
}

/** A callback that prints, once a tenth is written, how long the whole fill will take. */
function fillProgress(backend, total) {
  const start = performance.now();
  let printed = false;
  return (done) => {
    if (printed || done < total / 10) return;
    printed = true;
    const elapsed = (performance.now() - start) / 1000;
    console.log(
      `scale: ${backend}: ${done.toLocaleString("en")} sessions in ${elapsed.toFixed(0)} s, about ${((elapsed * total) / done).toFixed(0)} s for all`,
    );
  };
}

function percentile(times, q) {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

function percentiles(record, workload, backend, times, note, p95Note = "") {
  record(`${workload}, p50`, backend, percentile(times, 0.5), "ms", note);
  record(
    `${workload}, p95`,
    backend,
    percentile(times, 0.95),
    "ms",
    p95Note ? `${note}; ${p95Note}` : note,
  );
}

function check(ok, message) {
  if (!ok) throw new Error(`[bench/scale] ${message}`);
}

function fileSize(path) {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

await runAlone(import.meta.url, "scale", runScale);
