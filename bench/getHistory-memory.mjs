// Peak memory of one getHistory() of a 10,000-message path of ~2 KB messages: Arbor (cold: the
// first read of a Session; warm: the second read on the same Session), the reference
// (agents@0.22.0, driven through its public API) and Arbor's history() stream. Each read runs in
// its own child process and reports its peak RSS over the RSS it had just before the read.
// On Linux the peak is the kernel's high-water mark (VmHWM, reset through /proc/self/clear_refs),
// which also sees the synchronous SQLite work a timer could not sample; elsewhere a 5 ms sampler.
// `node bench/getHistory-memory.mjs` runs it alone.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentSessionProvider, Session } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import { freshFile, runAlone, scratch } from "./standalone.mjs";

const DEPTH = 10_000;
const TEXT_BYTES = 2_000;
/** Child processes per mode; the median peak counts. */
const RUNS = 3;
const SESSION = "deep";

/**
 * @param {string} parent the run's scratch folder (this section works in a folder of its own)
 * @param {(workload: string, backend: string, value: number, unit: string, note?: string) => void} record
 */
export async function runGetHistoryMemory(parent, record) {
  const dir = scratch(parent, "getHistory-memory");
  const arborFile = freshFile(join(dir, "memory-arbor.db"));
  writeArborChain(arborFile);
  const referenceFile = freshFile(join(dir, "memory-reference.db"));
  const hasReference = await writeReferenceChain(referenceFile);
  // Arbor's reads take milliseconds: three processes each, the median counts. The reference's
  // take ~20 s each here: one process.
  const children = [
    ["arbor", arborFile, RUNS],
    ["arbor-stream", arborFile, RUNS],
    ...(hasReference ? [["reference", referenceFile, 1]] : []),
  ];
  const measured = {};
  for (const [mode, file, runs] of children) {
    const results = [];
    for (let run = 0; run < runs; run++) {
      const output = execFileSync(
        process.execPath,
        ["--expose-gc", fileURLToPath(import.meta.url), file, mode],
        { encoding: "utf8", maxBuffer: 1 << 20 },
      );
      results.push(JSON.parse(output));
    }
    for (const kind of Object.keys(results[0])) {
      const sorted = results
        .map((result) => result[kind])
        .sort((a, b) => a.peakMegabytes - b.peakMegabytes);
      measured[`${mode}-${kind}`] = {
        ...sorted[Math.floor(sorted.length / 2)],
        runs,
      };
    }
  }
  const n = DEPTH.toLocaleString("en");
  const label = `peak RSS of getHistory() at ${n} × 2 KB`;
  const ratio = (kind) =>
    hasReference
      ? `; Arbor/0.22 ${(measured[`arbor-${kind}`].peakMegabytes / measured[`reference-${kind}`].peakMegabytes).toFixed(2)}`
      : "";
  const note = (key, extra) => {
    const { messages, runs, method } = measured[key];
    return `${messages.toLocaleString("en")} messages; ${extra}; ${runs === 1 ? "one process" : `median of ${runs} processes`} (${method})`;
  };
  record(
    `${label}, cold`,
    "arbor",
    measured["arbor-cold"].peakMegabytes,
    "MB",
    note("arbor-cold", `first read${ratio("cold")}`),
  );
  record(
    `${label}, warm`,
    "arbor",
    measured["arbor-warm"].peakMegabytes,
    "MB",
    note("arbor-warm", `second read, same Session${ratio("warm")}`),
  );
  if (hasReference) {
    for (const kind of ["cold", "warm"]) {
      record(
        `${label}, ${kind}`,
        "reference",
        measured[`reference-${kind}`].peakMegabytes,
        "MB",
        note(
          `reference-${kind}`,
          `agents@0.22.0, ${kind === "cold" ? "first" : "second"} read`,
        ),
      );
    }
  }
  record(
    `peak RSS of history() at ${n} × 2 KB`,
    "arbor",
    measured["arbor-stream-stream"].peakMegabytes,
    "MB",
    note(
      "arbor-stream-stream",
      `windows of 50; ${(measured["arbor-cold"].peakMegabytes / measured["arbor-stream-stream"].peakMegabytes).toFixed(1)}× less than a cold getHistory()`,
    ),
  );
}

// --- The two stores, same messages ---

function chainMessage(i) {
  return {
    id: `m${i}`,
    role: i % 2 ? "assistant" : "user",
    parts: [{ type: "text", text: `${i} ${"x".repeat(TEXT_BYTES)}` }],
  };
}

/** Arbor's chain, written as an import (one transaction). */
function writeArborChain(file) {
  const db = openSqlite(file);
  const provider = new AgentSessionProvider(db, SESSION);
  const messages = [];
  for (let i = 0; i < DEPTH; i++) {
    messages.push({
      message: chainMessage(i),
      parentId: i === 0 ? null : `m${i - 1}`,
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)).toISOString(),
    });
  }
  provider.importRecords({ messages, compactions: [] });
  db.close();
}

/**
 * The reference's chain: its first message through its API (which creates its tables), the rest
 * through its own table in one transaction, as bench/reference.mjs does. `false` when agents@0.22.0
 * is not installed in reference/ (bench/reference.mjs installs it; this file never does).
 */
async function writeReferenceChain(file) {
  const reference = await loadReference();
  if (!reference) {
    console.log(
      "getHistory memory: reference skipped (agents@0.22.0 not installed; `npm ci --prefix reference`)",
    );
    return false;
  }
  const db = openSqlite(file);
  await reference.Session.create({ sql: db.sql })
    .forSession(SESSION)
    .appendMessage(chainMessage(0));
  const insert = db.database.prepare(
    "INSERT INTO assistant_messages (id, session_id, parent_id, role, content) VALUES (?, ?, ?, ?, ?)",
  );
  db.database.transaction(() => {
    for (let i = 1; i < DEPTH; i++) {
      const entry = chainMessage(i);
      insert.run(
        entry.id,
        SESSION,
        `m${i - 1}`,
        entry.role,
        JSON.stringify(entry),
      );
    }
  })();
  db.close();
  return true;
}

async function loadReference() {
  const installed = fileURLToPath(
    new URL("../reference/node_modules/agents/package.json", import.meta.url),
  );
  if (!existsSync(installed)) return null;
  return import("../reference/agents-session.mjs");
}

// --- Child process: one read, its peak RSS over the RSS before it ---

const STATUS = "/proc/self/status";

function kilobytes(field) {
  const match = readFileSync(STATUS, "utf8").match(
    new RegExp(`${field}:\\s+(\\d+) kB`),
  );
  return match ? Number(match[1]) * 1024 : null;
}

/** Resets the kernel's peak-RSS mark; `false` where that is not available. */
function resetHighWaterMark() {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return kilobytes("VmHWM") !== null;
  } catch {
    return false;
  }
}

/**
 * One child: `arbor` and `reference` measure a first read (cold) and then a second read on the
 * same Session (warm); `arbor-stream` measures history(). Reads name the leaf: the reference's
 * own latest-leaf lookup takes minutes at this size, and naming it costs Arbor nothing.
 */
async function measure(file, mode) {
  const db = openSqlite(file);
  const session =
    mode === "reference"
      ? (await loadReference()).Session.create({ sql: db.sql }).forSession(
          SESSION,
        )
      : Session.create(db).forSession(SESSION);
  const leafId = `m${DEPTH - 1}`;
  // Opens the store (tables, statements) outside the measured read; an absent leaf reads nothing.
  await session.getHistory("absent");
  const result = {};
  if (mode === "arbor-stream") {
    result.stream = await peakOf(async () => {
      let messages = 0;
      for await (const entry of session.history()) if (entry.id) messages++;
      return messages;
    });
  } else {
    result.cold = await peakOf(async () => session.getHistory(leafId));
    result.warm = await peakOf(async () => session.getHistory(leafId));
  }
  db.close();
  process.stdout.write(JSON.stringify(result));
}

/** Peak RSS over the RSS just before `read`, which resolves to the messages (or their count). */
async function peakOf(read) {
  globalThis.gc?.();
  globalThis.gc?.();
  const kernel = resetHighWaterMark();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sample = kernel
    ? undefined
    : setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 5);
  // The result stays referenced until the peak is read, as a caller would hold it.
  const value = await read();
  clearInterval(sample);
  peak = kernel
    ? kilobytes("VmHWM")
    : Math.max(peak, process.memoryUsage().rss);
  return {
    peakMegabytes: (peak - before) / (1024 * 1024),
    messages: typeof value === "number" ? value : value.length,
    method: kernel ? "VmHWM" : "5 ms sampler",
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[3]) {
  await measure(process.argv[2], process.argv[3]);
} else {
  await runAlone(import.meta.url, "getHistory-memory", runGetHistoryMemory);
}
