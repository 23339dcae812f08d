// The raw SQLite ceiling: the rows Arbor writes for an append (the message, its change-log row and,
// optionally, its full-text index row), one transaction per message, and the path read with the
// same recursive query shape, all through bare better-sqlite3 statements (WAL, synchronous=NORMAL).
// Arbor's own append and getHistory run in the same process, side by side, so the percentages
// compare like with like on a loaded machine. `node bench/raw-ceiling.mjs` runs it alone.
import Database from "better-sqlite3";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Session } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import { freshFile, runAlone, scratch, time } from "./standalone.mjs";
import { message } from "./workload.mjs";

const COUNT = 10_000;
/** Each side runs this many times, alternating; the best run counts (the machine is shared). */
const ROUNDS = 2;
const SESSION = "bench";

/**
 * @param {string} parent the run's scratch folder (this section works in a folder of its own)
 * @param {(workload: string, backend: string, value: number, unit: string, note?: string) => void} record
 */
export async function runRawCeiling(parent, record) {
  const dir = scratch(parent, "raw-ceiling");
  const best = {};
  const keep = (key, value, better) => {
    if (best[key] === undefined || better(value, best[key])) best[key] = value;
  };
  const higher = (a, b) => a > b;
  const lower = (a, b) => a < b;
  for (let round = 0; round < ROUNDS; round++) {
    const file = (name) => freshFile(join(dir, `${name}-${round}.db`));
    const sides = {
      "raw fts": rawAppender(file("raw-fts"), true),
      "raw bare": rawAppender(file("raw-bare"), false),
      arbor: await arborAppender(file("arbor")),
    };
    // Chunks of 1,000 in turn, so a burst of load from elsewhere hits every side alike.
    const chunk = COUNT / 10;
    const ms = { "raw fts": 0, "raw bare": 0, arbor: 0 };
    for (let from = 0; from < COUNT; from += chunk) {
      for (const [name, side] of Object.entries(sides))
        ms[name] += await side.append(from, from + chunk);
    }
    for (const name of Object.keys(sides))
      keep(`${name} append`, COUNT / (ms[name] / 1000), higher);
    const search = await sides.arbor.search();
    keep("arbor search ms", search, lower);
    keep("arbor append+search", COUNT / ((ms.arbor + search) / 1000), higher);
    sides["raw fts"].close();
    // One call of 10,000: Arbor's appendAll against a bare loop in one transaction.
    keep("raw batch", rawBatch(file("raw-batch")), higher);
    keep("arbor batch", await arborBatch(file("arbor-batch")), higher);
    for (const [key, value] of Object.entries(
      await reads(sides["raw bare"], sides.arbor),
    ))
      keep(key, value, lower);
  }

  const n = COUNT.toLocaleString("en");
  const pct = (part, whole) => `${((part / whole) * 100).toFixed(0)}%`;
  const rawFts = best["raw fts append"];
  const rawBare = best["raw bare append"];
  record(
    `ceiling: append ${n}, FTS per txn`,
    "raw sqlite",
    rawFts,
    "msg/s",
    "message + change-log + FTS5 row, one transaction each",
  );
  record(
    `ceiling: append ${n}, no FTS`,
    "raw sqlite",
    rawBare,
    "msg/s",
    "message + change-log row, one transaction each",
  );
  record(
    `ceiling: append ${n}`,
    "arbor",
    best["arbor append"],
    "msg/s",
    `${pct(best["arbor append"], rawBare)} of raw without FTS (Arbor defers indexing)`,
  );
  record(
    `ceiling: append ${n} then one search`,
    "arbor",
    best["arbor append+search"],
    "msg/s",
    `search ${best["arbor search ms"].toFixed(0)} ms indexes all; ${pct(best["arbor append+search"], rawFts)} of raw with FTS per txn`,
  );
  record(
    `ceiling: appendAll ${n} in one call`,
    "raw sqlite",
    best["raw batch"],
    "msg/s",
    "one transaction: a prepared INSERT per message, then one change-log row",
  );
  record(
    `ceiling: appendAll ${n} in one call`,
    "arbor",
    best["arbor batch"],
    "msg/s",
    `Session.appendAll(): ${pct(best["arbor batch"], best["raw batch"])} of raw`,
  );
  record(
    `ceiling: getHistory ${n}, warm`,
    "raw sqlite",
    best["raw rows warm"],
    "ms",
    "recursive CTE, row per message, JSON.parse each; statement reused",
  );
  record(
    `ceiling: getHistory ${n}, warm, one string`,
    "raw sqlite",
    best["raw concat warm"],
    "ms",
    "content through the recursion, group_concat, one JSON.parse",
  );
  record(
    `ceiling: getHistory ${n}, warm`,
    "arbor",
    best["arbor warm"],
    "ms",
    `Arbor at ${pct(best["raw rows warm"], best["arbor warm"])} of raw rows speed, ${pct(best["raw concat warm"], best["arbor warm"])} of raw one-string speed (warm Arbor reuses its path cache)`,
  );
  record(
    `ceiling: getHistory ${n}, no path cache`,
    "arbor",
    best["arbor uncached"],
    "ms",
    `new Session on the open handle; Arbor at ${pct(best["raw rows warm"], best["arbor uncached"])} of raw rows speed, ${pct(best["raw concat warm"], best["arbor uncached"])} of raw one-string speed`,
  );
  record(
    `ceiling: getHistory ${n}, cold`,
    "raw sqlite",
    best["raw rows cold"],
    "ms",
    "new connection, statement prepared, rows + JSON.parse",
  );
  record(
    `ceiling: getHistory ${n}, cold`,
    "arbor",
    best["arbor cold"],
    "ms",
    `new handle + Session; Arbor at ${pct(best["raw rows cold"], best["arbor cold"])} of raw speed`,
  );
}

// --- Raw better-sqlite3 ---

function openRaw(file) {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  return db;
}

/** Arbor's tables for messages, the change log and the index (src/backends/sql/sql-ddl.ts). */
function createRawSchema(db) {
  db.exec(`
    CREATE TABLE IF NOT EXISTS assistant_messages (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL,
      session_id TEXT NOT NULL DEFAULT '',
      parent_id TEXT,
      role TEXT NOT NULL,
      content TEXT NOT NULL,
      created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
      chunked_bytes INTEGER,
      UNIQUE (session_id, id)
    );
    CREATE INDEX IF NOT EXISTS idx_assistant_messages_session_parent
      ON assistant_messages (session_id, parent_id);
    CREATE INDEX IF NOT EXISTS idx_assistant_messages_session_seq
      ON assistant_messages (session_id, seq);
    CREATE TABLE IF NOT EXISTS arbor_changes (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      session_id TEXT NOT NULL,
      type TEXT NOT NULL,
      ids TEXT NOT NULL,
      at TEXT NOT NULL
    );
    CREATE VIRTUAL TABLE IF NOT EXISTS assistant_fts USING fts5(
      id UNINDEXED, session_id UNINDEXED, role UNINDEXED, content, tokenize = 'porter unicode61'
    );`);
}

/** A new raw database with Arbor's tables and the two inserts an append makes: message, change row. */
function openRawWriter(file) {
  const db = openRaw(file);
  createRawSchema(db);
  const insertMessage = db.prepare(
    `INSERT INTO assistant_messages (id, session_id, parent_id, role, content, created_at)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, id) DO NOTHING RETURNING seq`,
  );
  const insertChange = db.prepare(
    `INSERT INTO arbor_changes (session_id, type, ids, at) VALUES (?, 'append', ?, ?)`,
  );
  return { db, insertMessage, insertChange };
}

/** Appends messages `from`..`to`, each its own transaction; the parent is kept in memory like Arbor's leaf cache. */
function rawAppender(file, withFts) {
  const { db, insertMessage, insertChange } = openRawWriter(file);
  const insertIndex = db.prepare(
    `INSERT INTO assistant_fts (rowid, id, session_id, role, content) VALUES (?, ?, ?, ?, ?)`,
  );
  const appendOne = db.transaction((entry, parentId) => {
    const now = new Date().toISOString();
    const { seq } = insertMessage.get(
      entry.id,
      SESSION,
      parentId,
      entry.role,
      JSON.stringify(entry),
      now,
    );
    insertChange.run(SESSION, JSON.stringify([entry.id]), now);
    if (withFts) {
      const text = entry.parts.map((part) => part.text).join(" ");
      insertIndex.run(seq, entry.id, SESSION, entry.role, text);
    }
  });
  let parentId = null;
  return {
    db,
    file,
    append(from, to) {
      const start = performance.now();
      for (let i = from; i < to; i++) {
        const entry = message(i);
        appendOne(entry, parentId);
        parentId = entry.id;
      }
      return performance.now() - start;
    },
    close: () => db.close(),
  };
}

/** msg/s of a bare better-sqlite3 loop writing `COUNT` messages as one chain in one transaction. */
function rawBatch(file) {
  const { db, insertMessage, insertChange } = openRawWriter(file);
  const entries = Array.from({ length: COUNT }, (_, i) => message(i));
  const start = performance.now();
  db.transaction(() => {
    const now = new Date().toISOString();
    let parentId = null;
    for (const entry of entries) {
      const content = JSON.stringify(entry);
      insertMessage.get(entry.id, SESSION, parentId, entry.role, content, now);
      parentId = entry.id;
    }
    insertChange.run(SESSION, JSON.stringify(entries.map((e) => e.id)), now);
  })();
  const ms = performance.now() - start;
  db.close();
  return COUNT / (ms / 1000);
}

/** msg/s of Arbor's `appendAll()` of `COUNT` messages in one call, on a new file. */
async function arborBatch(file) {
  const db = openSqlite(file);
  const session = Session.create(db).forSession(SESSION);
  await session.getLatestLeaf(); // the schema is created before timing
  const entries = Array.from({ length: COUNT }, (_, i) => message(i));
  const start = performance.now();
  const inserted = await session.appendAll(entries);
  const ms = performance.now() - start;
  db.close();
  if (inserted !== COUNT) throw new Error(`appendAll inserted ${inserted}`);
  return COUNT / (ms / 1000);
}

// The recursive walk of sql-path.ts: over (seq, parent_id) only, content joined afterwards.
const PATH_ROWS = `
  WITH RECURSIVE path (seq, parent_id) AS (
    SELECT seq, parent_id FROM assistant_messages WHERE session_id = ? AND id = ?
    UNION
    SELECT m.seq, m.parent_id FROM path AS p
      JOIN assistant_messages AS m ON m.session_id = ? AND m.id = p.parent_id
  )
  SELECT m.id AS id, m.parent_id AS parent_id, m.content AS content
  FROM path AS p JOIN assistant_messages AS m ON m.seq = p.seq`;
// The one-string shape (Arbor's earlier queryRawPath): content through the recursion, one group_concat.
const PATH_CONCAT = `
  WITH RECURSIVE path (id, parent_id, content, depth) AS (
    SELECT id, parent_id, content, 0 FROM assistant_messages WHERE session_id = ? AND id = ?
    UNION ALL
    SELECT m.id, m.parent_id, m.content, p.depth + 1 FROM path AS p
      JOIN assistant_messages AS m ON m.session_id = ? AND m.id = p.parent_id
    WHERE p.depth < ?
  )
  SELECT group_concat(content, ',') AS messages, json_group_array(id) AS ids FROM path`;

function readRows(statement, leafId) {
  const rows = statement.all(SESSION, leafId, SESSION);
  const messages = rows.map((row) => JSON.parse(row.content));
  // Rows come leaf first from the walk; root first as getHistory returns them.
  return messages.reverse();
}

function readConcat(statement, leafId) {
  const row = statement.get(SESSION, leafId, SESSION, COUNT);
  const ids = JSON.parse(row.ids);
  const messages = JSON.parse(`[${row.messages}]`).reverse();
  if (ids.length !== messages.length) throw new Error("path mismatch");
  return messages;
}

/** Arbor's Session over the same messages, appended one by one. */
async function arborAppender(file) {
  const db = openSqlite(file);
  const session = Session.create(db).forSession(SESSION);
  await session.getLatestLeaf(); // the schema is created before timing, as on the raw side
  return {
    db,
    file,
    session,
    async append(from, to) {
      const start = performance.now();
      for (let i = from; i < to; i++) await session.appendMessage(message(i));
      return performance.now() - start;
    },
    /** The first search, which indexes everything appended (catchUpIndex). */
    async search() {
      const { ms, value } = await time(() =>
        session.search("deploy", { limit: 20 }),
      );
      if (value.length === 0) throw new Error("Arbor search found nothing");
      return ms;
    },
  };
}

/** The reads of both 10,000-deep chains, interleaved; milliseconds by key. */
async function reads(raw, arbor) {
  const leafId = `m${COUNT - 1}`;
  const check = (what, messages) => {
    if (messages.length !== COUNT)
      throw new Error(`${what} returned ${messages.length} messages`);
  };
  raw.close();
  const rawDb = openRaw(raw.file);
  const rows = rawDb.prepare(PATH_ROWS);
  const concat = rawDb.prepare(PATH_CONCAT);
  const runs = {
    "raw rows warm": () => readRows(rows, leafId),
    "raw concat warm": () => readConcat(concat, leafId),
    "arbor warm": () => arbor.session.getHistory(),
    // A new Session on the open handle has no path cache: the query runs, as on the raw side.
    "arbor uncached": () =>
      Session.create(arbor.db).forSession(SESSION).getHistory(),
  };
  await arbor.session.getHistory(); // fills the path cache that "warm" measures
  const times = Object.fromEntries(Object.keys(runs).map((key) => [key, []]));
  for (let i = 0; i < 5; i++) {
    for (const [key, run] of Object.entries(runs)) {
      const { ms, value } = await time(run);
      check(key, value);
      times[key].push(ms);
    }
  }
  rawDb.close();
  arbor.db.close();
  const result = Object.fromEntries(
    Object.entries(times).map(([key, list]) => [
      key,
      list.sort((a, b) => a - b)[2],
    ]),
  );
  // Cold: a new connection, statements prepared anew, first read.
  const coldRaw = await time(() => {
    const db = openRaw(raw.file);
    const messages = readRows(db.prepare(PATH_ROWS), leafId);
    db.close();
    return messages;
  });
  check("raw cold", coldRaw.value);
  const coldArbor = await time(async () => {
    const db = openSqlite(arbor.file);
    const messages = await Session.create(db).forSession(SESSION).getHistory();
    db.close();
    return messages;
  });
  check("arbor cold", coldArbor.value);
  result["raw rows cold"] = coldRaw.ms;
  result["arbor cold"] = coldArbor.ms;
  return result;
}

await runAlone(import.meta.url, "raw-ceiling", runRawCeiling);
