// Peak memory of reading a long path: `getHistory()` (the whole path at once) against `history()`
// (windows of 50 messages). Each read runs in its own process, so one's garbage never counts
// against the other, and reports its peak RSS over the RSS it had before the read.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentSessionProvider, Session } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";

const DEPTH = 100_000;
const TEXT_BYTES = 2_000;
const IMPORT_BATCH = 10_000;

/** Builds the path once, then measures both reads side by side; rows go to `record`. */
export async function runHistoryMemory(dir, record) {
  const file = join(dir, "history-memory.db");
  writeChain(file);
  const measured = {};
  for (const mode of ["getHistory", "history"]) {
    const output = execFileSync(
      process.execPath,
      ["--expose-gc", fileURLToPath(import.meta.url), file, mode],
      { encoding: "utf8" },
    );
    measured[mode] = JSON.parse(output);
  }
  const depth = DEPTH.toLocaleString("en");
  for (const mode of ["getHistory", "history"]) {
    const { peakMegabytes, messages } = measured[mode];
    const note =
      mode === "history"
        ? `${messages} messages in windows of 50; ${(measured.getHistory.peakMegabytes / peakMegabytes).toFixed(1)}× less than getHistory()`
        : `${messages} messages at once`;
    record(
      `peak RSS of ${mode}() at depth ${depth} × 2 KB`,
      "sqlite file",
      peakMegabytes,
      "MB",
      note,
    );
  }
}

function writeChain(file) {
  const provider = new AgentSessionProvider(openSqlite(file), "deep");
  const filler = "x".repeat(TEXT_BYTES);
  for (let start = 0; start < DEPTH; start += IMPORT_BATCH) {
    const messages = [];
    for (let i = start; i < start + IMPORT_BATCH; i++) {
      messages.push({
        message: {
          id: `m${i}`,
          role: i % 2 ? "assistant" : "user",
          parts: [{ type: "text", text: `${i} ${filler}` }],
        },
        parentId: i === 0 ? null : `m${i - 1}`,
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)).toISOString(),
      });
    }
    // One transaction per batch: the chain is written as an import, not appended one by one.
    provider.importRecords({ messages, compactions: [] });
  }
}

// --- Child process: one read, its peak RSS over the RSS before it ---

async function measure(file, mode) {
  const session = Session.create(openSqlite(file)).forSession("deep");
  await session.getLatestLeaf();
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  let messages = 0;
  if (mode === "history") {
    for await (const message of session.history()) {
      if (message.id) messages++;
    }
  } else {
    messages = (await session.getHistory()).length;
  }
  clearInterval(sample);
  peak = Math.max(peak, process.memoryUsage().rss);
  const peakMegabytes = (peak - before) / (1024 * 1024);
  process.stdout.write(JSON.stringify({ peakMegabytes, messages }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await measure(process.argv[2], process.argv[3]);
}
