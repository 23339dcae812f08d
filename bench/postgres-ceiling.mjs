// The raw PostgreSQL ceiling: a bare INSERT of the row Arbor writes for an append, one transaction
// per message, into a scratch copy of Arbor's assistant_messages (same columns, generated tsvector,
// identity and indexes: `LIKE … INCLUDING ALL`), against Arbor's own appendMessage through
// PostgresSessionProvider, for 1 writer and for 8 concurrent writers on distinct sessions (one
// pg.Pool), in the same run, alternating, best of two rounds. Then a profile: every statement
// Arbor sends per append, counted and timed by wrapping the pool's clients. Run by bench/run.mjs,
// or alone: `node bench/postgres-ceiling.mjs` (after `npm run build`, with ARBOR_TEST_PG_URL).
import { performance } from "node:perf_hooks";
import {
  applyPostgresSchema,
  PostgresSessionProvider,
  Session,
} from "arbor-memory/session";
import { runAlone, throwawayDatabase } from "./standalone.mjs";
import { message } from "./workload.mjs";

const SINGLE = 600;
const WRITERS = 8;
const EACH = 150;
/** Each side runs this many times, alternating; the best run counts (the machine is shared). */
const ROUNDS = 3;
/** Appends whose statements are counted and timed after the timed rounds. */
const PROFILED = 200;
/** The share of raw speed Arbor is measured against. */
const TARGET = 0.5;

const RAW_INSERT = `INSERT INTO ceiling.assistant_messages
  (id, session_id, parent_id, role, content, text_content, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp())`;
/**
 * The same INSERT after taking one database-wide transaction lock, as Arbor's change log does
 * (`arbor_record_change` orders every write of the database by one advisory lock held until
 * commit). A diagnostic: it shows what that serialization alone costs 8 writers.
 */
const RAW_INSERT_GLOBAL_LOCK = `WITH locked AS MATERIALIZED (SELECT pg_advisory_xact_lock(${0x41524252 + 7}, 0))
  INSERT INTO ceiling.assistant_messages
  (id, session_id, parent_id, role, content, text_content, created_at)
  SELECT $1, $2, $3, $4, $5, $6, clock_timestamp() FROM locked`;

/**
 * @param {string} _dir scratch folder (unused: everything lives in a throwaway database)
 * @param {(workload: string, backend: string, value: number, unit: string, note?: string) => void} record
 */
export async function runPostgresCeiling(_dir, record) {
  const serverUrl = process.env.ARBOR_TEST_PG_URL;
  if (!serverUrl) {
    console.log(
      "postgres ceiling: skipped (set ARBOR_TEST_PG_URL, e.g. postgres://postgres@127.0.0.1:5432/postgres)",
    );
    return;
  }
  const { pool, drop } = await throwawayDatabase(serverUrl, "arbor_ceiling", {
    max: WRITERS + 2,
  });
  const profile = statementProfile(pool);
  try {
    await applyPostgresSchema(pool);
    await pool.query("CREATE SCHEMA ceiling");
    await pool.query(
      "CREATE TABLE ceiling.assistant_messages (LIKE public.assistant_messages INCLUDING ALL)",
    );
    const best = {};
    const keep = (key, value) => {
      best[key] = Math.max(best[key] ?? 0, value);
    };
    for (let round = 0; round < ROUNDS; round++) {
      keep("raw 1", await rawRun(pool, `r${round}`, 1, SINGLE));
      keep("arbor 1", await arborRun(pool, `r${round}`, 1, SINGLE));
      keep("raw 8", await rawRun(pool, `r${round}`, WRITERS, EACH));
      keep("arbor 8", await arborRun(pool, `r${round}`, WRITERS, EACH));
      keep(
        "locked 8",
        await rawRun(pool, `l${round}`, WRITERS, EACH, RAW_INSERT_GLOBAL_LOCK),
      );
    }
    for (const [writers, count, label] of [
      [1, SINGLE, `1 writer × ${SINGLE.toLocaleString("en")}`],
      [WRITERS, EACH, `${WRITERS} writers × ${EACH}`],
    ]) {
      const raw = best[`raw ${writers}`];
      const arbor = best[`arbor ${writers}`];
      const share = arbor / raw;
      record(
        `pg ceiling: append, ${label}`,
        "raw postgres",
        raw,
        "msg/s",
        `bare INSERT of the same row, one transaction each${writers > 1 ? ", distinct sessions" : ""}; best of ${ROUNDS}`,
      );
      record(
        `pg ceiling: append, ${label}`,
        "arbor postgres",
        arbor,
        "msg/s",
        `Session.appendMessage(): ${(share * 100).toFixed(0)}% of raw (target ≥ ${TARGET * 100}%: ${share >= TARGET ? "met" : "missed"}); ${count * writers} messages`,
      );
    }
    record(
      `pg ceiling: append, ${WRITERS} writers × ${EACH}`,
      "raw + 1 global lock",
      best["locked 8"],
      "msg/s",
      `diagnostic: the bare INSERT after one database-wide xact advisory lock (as Arbor's change log took before schema v4); ${((best["locked 8"] / best["raw 8"]) * 100).toFixed(0)}% of raw, Arbor at ${((best["arbor 8"] / best["locked 8"]) * 100).toFixed(0)}% of it`,
    );

    // Where an append's time goes: every statement, counted and timed, 1 writer then 8.
    for (const writers of [1, WRITERS]) {
      const each = PROFILED / writers;
      for (const [backend, run] of [
        ["arbor postgres", arborRun],
        ["raw postgres", rawRun],
      ]) {
        profile.start();
        await run(pool, `profile-${writers}`, writers, each);
        // Each session's untimed first append (its initialization) is counted too.
        const stats = profile.stop(PROFILED + writers);
        record(
          `pg ceiling: round trips per append, ${writers === 1 ? "1 writer" : `${writers} writers`}`,
          backend,
          stats.count / stats.appends,
          "queries",
          describe(stats),
        );
      }
    }
  } finally {
    await drop();
  }
}

/** msg/s of `writers` concurrent bare INSERT loops, each on its own session. */
async function rawRun(pool, tag, writers, count, statement = RAW_INSERT) {
  const sessions = Array.from(
    { length: writers },
    (_, w) => `raw-${tag}-${writers}-${w}`,
  );
  // One untimed insert per writer: connections open, statements planned.
  await Promise.all(sessions.map((id) => rawInsert(pool, statement, id, -1)));
  const start = performance.now();
  await Promise.all(
    sessions.map(async (id) => {
      for (let i = 0; i < count; i++) await rawInsert(pool, statement, id, i);
    }),
  );
  return (writers * count) / ((performance.now() - start) / 1000);
}

function rawInsert(pool, statement, sessionId, i) {
  const m = i < 0 ? { ...message(0), id: "warm" } : message(i);
  return pool.query(statement, [
    m.id,
    sessionId,
    i === 0 ? "warm" : i < 0 ? null : `m${i - 1}`,
    m.role,
    JSON.stringify(m),
    m.parts[0].text.toLowerCase(),
  ]);
}

/** msg/s of `writers` concurrent Arbor sessions, each appending `count` messages. */
async function arborRun(pool, tag, writers, count) {
  const sessions = Array.from({ length: writers }, (_, w) =>
    Session.create(
      new PostgresSessionProvider(pool, `arbor-${tag}-${writers}-${w}`),
    ),
  );
  // One untimed append per session: its lazy initialization, connections, plans.
  await Promise.all(
    sessions.map((session) =>
      session.appendMessage({ ...message(0), id: "warm" }),
    ),
  );
  const start = performance.now();
  await Promise.all(
    sessions.map(async (session) => {
      for (let i = 0; i < count; i++) await session.appendMessage(message(i));
    }),
  );
  return (writers * count) / ((performance.now() - start) / 1000);
}

/**
 * Counts and times every statement sent through the pool's clients while started (pg-pool sends
 * `pool.query()` through a client too, so nothing is missed): by statement kind, its first words.
 */
function statementProfile(pool) {
  let stats = null;
  pool.on("connect", (client) => {
    const query = client.query;
    client.query = function (...args) {
      if (!stats) return query.apply(this, args);
      const text = typeof args[0] === "string" ? args[0] : args[0]?.text;
      const kind = statementKind(text);
      const started = performance.now();
      const done = () => note(kind, performance.now() - started);
      const last = args.at(-1);
      if (typeof last === "function") {
        args[args.length - 1] = (...result) => {
          done();
          return last(...result);
        };
        return query.apply(this, args);
      }
      const result = query.apply(this, args);
      result?.then?.(done, done);
      return result;
    };
  });
  const note = (kind, ms) => {
    if (!stats) return;
    stats.count++;
    const entry = stats.kinds.get(kind) ?? { count: 0, ms: 0 };
    entry.count++;
    entry.ms += ms;
    stats.kinds.set(kind, entry);
  };
  return {
    start: () => {
      stats = { count: 0, kinds: new Map(), started: performance.now() };
    },
    stop: (appends) => {
      const result = {
        ...stats,
        appends,
        ms: performance.now() - stats.started,
      };
      stats = null;
      return result;
    },
  };
}

function statementKind(text) {
  const words = String(text ?? "?")
    .replace(/\s+/g, " ")
    .trim();
  if (/^INSERT INTO ceiling\./.test(words)) return "raw INSERT";
  if (
    /pg_advisory_xact_lock/.test(words) &&
    /INSERT INTO assistant_messages/.test(words)
  )
    return "locked INSERT (lock + parent + insert + change + attachments)";
  return words.length > 60 ? `${words.slice(0, 57)}…` : words;
}

/** Statements per append by kind, with their mean latency (waits for locks included). */
function describe(stats) {
  const perAppend = (ms) => (ms / stats.appends).toFixed(2);
  const kinds = [...stats.kinds.entries()]
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(
      ([kind, { count, ms }]) =>
        `${(count / stats.appends).toFixed(2)}× "${kind}" ${(ms / count).toFixed(2)} ms each`,
    );
  return `${perAppend(stats.ms)} ms wall per append; ${kinds.join("; ")}`;
}

await runAlone(import.meta.url, "postgres-ceiling", runPostgresCeiling);
