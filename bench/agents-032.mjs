// Side by side with agents@0.32.0 in its native home: both designs run in SQLite-backed Durable
// Objects of the SAME workerd (Miniflare), one after the other, on the same workloads. agents@0.32
// is driven as a black box through its public `agents/sessions` API; it lives in
// reference/agents-0.32/ with its own lockfile and is installed here on first use. The objects are
// in bench/agents-032-object.mjs. Run by bench/run.mjs, or alone: `node bench/agents-032.mjs`
// (after `npm run build`) prints its rows.
//
// How time is measured. Inside deployed workerd, `Date.now()` and `performance.now()` do not move
// during synchronous execution (they advance only across I/O), and in this Miniflare they move in
// coarse steps of a millisecond or more; SQLite calls in a Durable Object are synchronous. So each
// measured step is one request that does the whole step inside the object and answers with counts
// only, timed from Node with `performance.now()` around `fetch()`, minus the median round trip of
// a no-op request to an object of the same class (measured before each workload; for a single
// update, the no-op just before it).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Miniflare } from "miniflare";
import { rolldown } from "rolldown";
import { sentence, sparseSentence } from "./workload.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const REFERENCE = join(ROOT, "reference", "agents-0.32");
const AGENTS = join(REFERENCE, "node_modules", "agents");
const ARBOR = "arbor (workerd)";
const AGENTS_032 = "agents@0.32 (workerd)";
const DESIGNS = [
  [ARBOR, "ArborBench"],
  [AGENTS_032, "AgentsBench"],
];
const DEPTH = 10_000;
const SEARCHED = 50_000;
/** How long a timed request of repeated operations should last, and the most it repeats. */
const TARGET_MS = 150;
const MAX_REPEAT = 200;
const RESTARTS = 7;

/**
 * @param {string} dir scratch folder (its `agents-032/` subfolder holds the objects' storage)
 * @param {(workload: string, backend: string, value: number, unit: string, note?: string) => void} record
 */
export async function runAgents032(dir, record) {
  if (!existsSync(join(ROOT, "dist", "session", "index.js"))) {
    console.log("agents@0.32: skipped (no dist/: run `npm run build` first)");
    return;
  }
  try {
    installAgents032();
  } catch (error) {
    console.log(
      `agents@0.32: skipped (could not install reference/agents-0.32, is the npm registry reachable? ${error.message})`,
    );
    return;
  }
  const persist = join(dir, "agents-032");
  rmSync(persist, { recursive: true, force: true });
  mkdirSync(persist, { recursive: true });
  const modules = await bundleObjects();
  let worker = start(modules, persist);
  try {
    // Re-measured before each workload: the machine's load drifts.
    let rtt = await roundTrips(worker);
    const timed = async (design, object, path, params = {}) => {
      const begin = performance.now();
      const body = await call(worker, design, object, path, params);
      return { ms: performance.now() - begin - rtt[design], body };
    };
    // The median over `runs` requests of the time per operation. After a warm-up request, a
    // probe sizes `repeat`, the operations per request, so each request lasts about TARGET_MS and
    // the round trip's jitter stays small beside it.
    const perOperation = async (runs, design, object, path, params) => {
      const paramsAt = typeof params === "function" ? params : () => params;
      await timed(design, object, path, paramsAt("warm-up"));
      let probe = (await timed(design, object, path, paramsAt("probe"))).ms;
      // A quick operation is lost in the round trip's jitter: size it again over 10.
      if (probe < TARGET_MS)
        probe =
          (
            await timed(design, object, path, {
              ...paramsAt("probe-10"),
              repeat: 10,
            })
          ).ms / 10;
      const repeat = Math.min(
        MAX_REPEAT,
        Math.max(1, Math.ceil(TARGET_MS / Math.max(probe, 0.1))),
      );
      const results = [];
      for (let r = 0; r < runs; r++) {
        const { ms, body } = await timed(design, object, path, {
          ...paramsAt(r),
          repeat,
        });
        results.push({ ms: ms / repeat, body });
      }
      results.sort((a, b) => a.ms - b.ms);
      return { ...results[Math.floor(runs / 2)], repeat };
    };
    const pair = (workload, unit, higherIsBetter, values, notes = {}) => {
      const [a, b] = DESIGNS.map(([name]) => values[name]);
      const ratio = higherIsBetter ? a / b : b / a;
      const winner = ratio >= 1 ? "Arbor" : "agents@0.32";
      record(workload, ARBOR, a, unit, notes[ARBOR] ?? "");
      record(
        workload,
        AGENTS_032,
        b,
        unit,
        [
          `${winner} ${Math.max(ratio, 1 / ratio).toFixed(1)}× ${higherIsBetter ? "faster" : "less time"}`,
          notes[AGENTS_032],
        ]
          .filter(Boolean)
          .join("; "),
      );
    };
    console.log(
      `agents@0.32: no-op round trip ${rtt.ArborBench.toFixed(2)} ms (arbor), ${rtt.AgentsBench.toFixed(2)} ms (agents@0.32), subtracted`,
    );

    // 1. Append 10,000 one by one, in ten requests of 1,000 (first/last 10% as in run.mjs). The
    // two designs take turns chunk by chunk, so a burst of load from elsewhere on a shared
    // machine slows both alike instead of one whole side.
    const rates = {};
    {
      const notes = {};
      const chunk = DEPTH / 10;
      const chunkRates = Object.fromEntries(
        DESIGNS.map(([name]) => [name, []]),
      );
      // An empty read first: set-up (tables, agents@0.32's start-up) is not timed as appends.
      for (const [, design] of DESIGNS)
        await call(worker, design, "deep", "/history");
      for (let c = 0; c < 10; c++) {
        for (const [name, design] of DESIGNS) {
          const { ms } = await timed(design, "deep", "/append", {
            from: c * chunk,
            count: chunk,
          });
          chunkRates[name].push(chunk / (ms / 1000));
        }
      }
      for (const [name] of DESIGNS) {
        const ofDesign = chunkRates[name];
        rates[name] =
          DEPTH / ofDesign.reduce((sum, rate) => sum + chunk / rate, 0);
        notes[name] =
          `first 10%: ${Math.round(ofDesign[0])}, last 10%: ${Math.round(ofDesign[9])}`;
      }
      pair("workerd: append 10,000", "msg/s", true, rates, notes);
    }

    rtt = await roundTrips(worker);
    // 2. getHistory at depth 10,000: warm (the object's own handle), fresh handle in the same
    // object, and a new object instance after restarting workerd over the same storage.
    {
      const warm = {};
      const fresh = {};
      const warmNotes = {};
      const freshNotes = {};
      for (const [name, design] of DESIGNS) {
        const result = await perOperation(5, design, "deep", "/history");
        warm[name] = result.ms;
        warmNotes[name] =
          `returned ${result.body.length.toLocaleString("en")}; median of 5 requests of ${result.repeat}`;
        const again = await perOperation(5, design, "deep", "/history-fresh");
        fresh[name] = again.ms;
        freshNotes[name] =
          `${name === ARBOR ? "new Session over the same object" : "new Sessions on a new Lifecycle, started, in the same object"}; median of 5 requests of ${again.repeat}`;
      }
      pair("workerd: getHistory 10,000, warm", "ms", false, warm, warmNotes);
      pair(
        "workerd: getHistory 10,000, new handle",
        "ms",
        false,
        fresh,
        freshNotes,
      );
      // Each restart: a new workerd over the persisted storage, its isolate warmed by a no-op
      // request to another object, then the first request to the object: construction (and for
      // agents@0.32 its Lifecycle start-up) plus the read. A new workerd for each design, in
      // alternating order: the first large read in an isolate costs a third more than the same
      // read after it (the heap grows, measured 2026-12-05), so sharing one workerd handed that
      // cost to whichever design read first.
      // The third entry is no design: one bare SELECT and JSON.parse of Arbor's 10,000 stored
      // texts, the floor under any read that returns them parsed.
      const BARE = "bare read";
      const entries = [
        [ARBOR, "ArborBench", "/history"],
        [AGENTS_032, "AgentsBench", "/history"],
        [BARE, "ArborBench", "/bare-history"],
      ];
      const restarts = { [ARBOR]: [], [AGENTS_032]: [], [BARE]: [] };
      for (let r = 0; r < RESTARTS; r++) {
        for (const [name, design, path] of r % 2
          ? [...entries].reverse()
          : entries) {
          await worker.dispose();
          worker = start(modules, persist);
          await call(worker, design, "noop", "/noop");
          const { ms, body } = await timed(design, "deep", path);
          if (body.length !== DEPTH)
            throw new Error(`${name} read ${body.length} messages`);
          restarts[name].push(ms);
        }
      }
      const restartMedian = Object.fromEntries(
        Object.entries(restarts).map(([name, times]) => [
          name,
          times.sort((a, b) => a - b)[RESTARTS >> 1],
        ]),
      );
      pair(
        "workerd: getHistory 10,000, restarted",
        "ms",
        false,
        restartMedian,
        {
          [ARBOR]: `median of ${RESTARTS} restarts; first request to the object, construction included`,
        },
      );
      const bare = restartMedian[BARE];
      record(
        "workerd: getHistory 10,000, restarted, bare SELECT",
        "SQLite alone (workerd)",
        bare,
        "ms",
        `no library: one SELECT of the 10,000 stored texts and one JSON.parse, on Arbor's table (median of ${RESTARTS} restarts); agents@0.32 takes ${(restartMedian[AGENTS_032] / bare).toFixed(1)}× this, Arbor ${(restartMedian[ARBOR] / bare).toFixed(2)}×`,
      );
    }

    rtt = await roundTrips(worker);
    // 3. Search over 50,000 messages, on both vocabularies (bench/workload.mjs).
    for (const [vocabulary, text, label] of [
      ["dense", sentence, "dense vocabulary"],
      ["sparse", sparseSentence, "sparse vocabulary"],
    ]) {
      const object = `search-${vocabulary}`;
      const firstSearch = {};
      for (const [name, design] of DESIGNS) {
        for (let from = 0; from < SEARCHED; from += 10_000)
          await call(worker, design, object, "/append", {
            vocabulary,
            from,
            count: 10_000,
          });
        firstSearch[name] = (
          await timed(design, object, "/search", { q: "deploy", limit: 20 })
        ).ms;
      }
      pair(`workerd: first search, 50,000 ${label}`, "ms", false, firstSearch, {
        [ARBOR]: "builds the index over the 50,000 appended messages",
      });
      for (const [terms, query] of [
        ["one word", "deploy"],
        ["two words", "deploy friday"],
      ]) {
        const expected = countMatches(text, query);
        const times = {};
        const notes = {};
        for (const [name, design] of DESIGNS) {
          const { ms, repeat } = await perOperation(
            5,
            design,
            object,
            "/search",
            {
              q: query,
              limit: 20,
            },
          );
          times[name] = ms;
          const { hits } = await call(worker, design, object, "/search", {
            q: query,
            limit: 1_000_000,
          });
          notes[name] =
            `limit 20, median of 5 requests of ${repeat}; unlimited: found ${hits} of ${expected.all} with all words`;
        }
        notes[AGENTS_032] +=
          expected.phrase === expected.all
            ? ""
            : ` (${expected.phrase} have them as a phrase)`;
        pair(
          `workerd: search 50,000 ${label}, ${terms}`,
          "ms",
          false,
          times,
          notes,
        );
      }
    }

    rtt = await roundTrips(worker);
    // 4. updateMessage of one message in the middle of the 10,000, with the search index built.
    // Every update writes a new text: agents@0.32 writes nothing for an unchanged message. Two
    // figures: one update per request, which includes the object's storage commit before the
    // response (a few ms, the same for both), and many per request, the commit shared.
    {
      const single = {};
      const batched = {};
      const singleNotes = {};
      const batchedNotes = {};
      for (const [name, design] of DESIGNS) {
        await call(worker, design, "deep", "/search", {
          q: "deploy",
          limit: 20,
        });
        const params = (n) => ({ i: DEPTH / 2, n });
        await timed(design, "deep", "/update", params("warm-up"));
        // Paired: each update minus the no-op request just before it.
        const samples = [];
        for (let n = 0; n < 20; n++) {
          const noop = (await timed(design, "noop", "/noop")).ms;
          const update = (
            await timed(design, "deep", "/update", params(`one-${n}`))
          ).ms;
          samples.push(update - noop);
        }
        single[name] = samples.sort((a, b) => a - b)[10];
        singleNotes[name] =
          "median of 20 requests of 1, each less the no-op before it";
        const result = await perOperation(
          20,
          design,
          "deep",
          "/update",
          params,
        );
        batched[name] = result.ms;
        batchedNotes[name] = `median of 20 requests of ${result.repeat}`;
      }
      singleNotes[ARBOR] += ", after a search built the index";
      batchedNotes[ARBOR] += ", per update";
      pair(
        "workerd: updateMessage in 10,000, indexed",
        "ms",
        false,
        single,
        singleNotes,
      );
      pair(
        "workerd: updateMessage in 10,000, many per request",
        "ms",
        false,
        batched,
        batchedNotes,
      );
    }

    rtt = await roundTrips(worker);
    // 5. appendAll, when Arbor's Session has it: 10,000 in one call.
    {
      // Three fresh objects; the median.
      const runs = [];
      for (let r = 0; r < 3; r++) {
        // An empty read first, so the table set-up is not timed with the batch.
        await call(worker, "ArborBench", `batch-${r}`, "/history");
        runs.push(
          await timed("ArborBench", `batch-${r}`, "/append-all", {
            count: DEPTH,
          }),
        );
      }
      const { ms, body } = runs.sort((a, b) => a.ms - b.ms)[1];
      if (body.missing) {
        console.log(
          "workerd: appendAll 10,000: skipped (Arbor's Session has no appendAll() in this build)",
        );
      } else {
        const rate = body.appended / (ms / 1000);
        record(
          "workerd: appendAll 10,000",
          ARBOR,
          rate,
          "msg/s",
          `one call (median of 3 objects), ${body.appended.toLocaleString("en")} inserted; ${(rate / rates[ARBOR]).toFixed(1)}× Arbor's one-by-one rate, ${(rate / rates[AGENTS_032]).toFixed(1)}× agents@0.32's (it has no batch append)`,
        );
      }
    }
  } finally {
    await worker.dispose();
    rmSync(persist, { recursive: true, force: true });
  }
}

// --- Internal helpers ---

/** Installs reference/agents-0.32 (its own lockfile) unless agents is already there. */
function installAgents032() {
  if (existsSync(join(AGENTS, "package.json"))) return;
  console.log("agents@0.32: installing reference/agents-0.32 (once)");
  execFileSync(
    "npm",
    [
      "ci",
      "--prefix",
      REFERENCE,
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
    ],
    { cwd: ROOT, stdio: "inherit" },
  );
}

/** Bundles the two objects with rolldown, as reference/generate-032-fixtures.mjs does. */
async function bundleObjects() {
  const bundle = await rolldown({
    input: fileURLToPath(new URL("./agents-032-object.mjs", import.meta.url)),
    platform: "neutral",
    external: [/^cloudflare:/, /^node:/],
    logLevel: "warn",
    resolve: {
      alias: {
        // The built package, as a user installs it, and agents from its own folder.
        "arbor-memory/session": join(ROOT, "dist", "session", "index.js"),
        "agents/sessions": join(AGENTS, "dist", "sessions", "index.js"),
        "agents/lifecycle": join(AGENTS, "dist", "lifecycle", "index.js"),
      },
    },
  });
  try {
    const { output } = await bundle.generate({ format: "esm" });
    return output
      .filter((chunk) => chunk.type === "chunk")
      .map((chunk) => ({
        type: "ESModule",
        path: `/worker/${chunk.isEntry ? "index.js" : chunk.fileName}`,
        contents: chunk.code,
      }));
  } finally {
    await bundle.close();
  }
}

/** One workerd with both object classes, storing under `persist` so it can be restarted. */
function start(modules, persist) {
  return new Miniflare({
    modules,
    modulesRoot: "/worker",
    compatibilityDate: "2026-04-01",
    compatibilityFlags: ["nodejs_compat"],
    durableObjects: {
      ArborBench: { className: "ArborBench", useSQLite: true },
      AgentsBench: { className: "AgentsBench", useSQLite: true },
    },
    durableObjectsPersist: persist,
  });
}

/** One request to object `object` of class `design`; throws what the object reported. */
async function call(worker, design, object, path, params = {}) {
  const query = new URLSearchParams({ design, object, ...params });
  const response = await worker.dispatchFetch(`http://bench${path}?${query}`);
  const body = await response.json();
  if (!response.ok || body.error)
    throw new Error(`${design} ${path}: ${body.error ?? response.status}`);
  return body;
}

/** The median no-op round trip per class, after warming workerd and both objects up. */
async function roundTrips(worker) {
  const result = {};
  for (const [, design] of DESIGNS) {
    for (let i = 0; i < 3; i++) await call(worker, design, "noop", "/noop");
    const times = [];
    for (let i = 0; i < 21; i++) {
      const begin = performance.now();
      await call(worker, design, "noop", "/noop");
      times.push(performance.now() - begin);
    }
    result[design] = times.sort((a, b) => a - b)[10];
  }
  return result;
}

/** How many of the 50,000 texts hold every word of `query`, and hold it as one phrase. */
function countMatches(text, query) {
  const terms = query.split(" ");
  let all = 0;
  let phrase = 0;
  for (let i = 0; i < SEARCHED; i++) {
    const line = text(i);
    const words = new Set(line.split(" "));
    if (terms.every((term) => words.has(term))) all++;
    if (` ${line} `.includes(` ${query} `)) phrase++;
  }
  return { all, phrase };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rows = [];
  await runAgents032(join(process.cwd(), ".bench"), (...row) => {
    rows.push(row);
    const [workload, backend, value, unit, note] = row;
    console.log(
      `${workload.padEnd(46)} ${backend.padEnd(22)} ${(value >= 100 ? Math.round(value).toString() : value.toFixed(2)).padStart(10)} ${unit} ${note}`,
    );
  });
}
