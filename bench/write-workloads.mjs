// Writes other than append, at scale: updateMessage and deleteMessages in sessions of 100, 10,000
// and 100,000 messages with the search index built; fork at depth 10,000 through SessionManager;
// appendAll of 10,000 in one call (when Session has it). `node bench/write-workloads.mjs` runs it
// alone.
import { join } from "node:path";
import { Session, SessionManager } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import { freshFile, median, runAlone, scratch, time } from "./standalone.mjs";
import { message, sentence } from "./workload.mjs";

const SIZES = [100, 10_000, 100_000];
const SAMPLES = 20;
const BUILD_BATCH = 10_000;

/**
 * @param {string} parent the run's scratch folder (this section works in a folder of its own)
 * @param {(workload: string, backend: string, value: number, unit: string, note?: string) => void} record
 */
export async function runWriteWorkloads(parent, record) {
  const dir = scratch(parent, "write-workloads");
  // The first size would otherwise pay for compiling the write paths: run them once, unrecorded.
  await updateAndDelete(dir, SIZES[0], () => undefined);
  for (const size of SIZES) await updateAndDelete(dir, size, record);
  await forkAtDepth(dir, 10_000, record);
  await appendAllAtOnce(dir, 10_000, record);
}

/** Appends messages `from`..`to` after the latest leaf: with appendAll when Session has it. */
async function build(session, from, to) {
  if (typeof session.appendAll === "function") {
    for (let start = from; start < to; start += BUILD_BATCH) {
      const batch = [];
      for (let i = start; i < Math.min(to, start + BUILD_BATCH); i++)
        batch.push(message(i));
      await session.appendAll(batch);
    }
  } else {
    for (let i = from; i < to; i++) await session.appendMessage(message(i));
  }
}

async function updateAndDelete(dir, size, record) {
  const n = size.toLocaleString("en");
  const db = openSqlite(freshFile(join(dir, `writes-${size}.db`)));
  const session = Session.create(db).forSession("writes");
  const built = await time(() => build(session, 0, size));
  // The index is caught up to every message, so each update below rewrites an indexed row.
  const indexed = await time(() => session.search("deploy", { limit: 1 }));
  const note = `built in ${(built.ms / 1000).toFixed(1)} s (${typeof session.appendAll === "function" ? "appendAll" : "appendMessage"}), first search ${indexed.ms.toFixed(0)} ms`;
  console.log(`writes ${n}: ${note}`);

  // Targets spread over the session; updates and deletes never touch the same message.
  const at = (k, offset) => Math.floor(((k + offset) * size) / SAMPLES);
  const marker = (k) => `zqupdated${k}`;
  const update = await median(SAMPLES, (k) => {
    const i = at(k, 0.5);
    return session.updateMessage({
      ...message(i),
      parts: [{ type: "text", text: `${sentence(i)} ${marker(k)}` }],
    });
  });
  // The updated text must be searchable: the update marked its index row stale, and this search
  // rewrote it before matching.
  const probe = SAMPLES - 1;
  const hits = await session.search(marker(probe), { limit: 5 });
  const reindexed =
    hits.length === 1 && hits[0].id === `m${at(probe, 0.5)}`
      ? "updated text found by search"
      : `search for the updated text found ${hits.length}`;
  record(
    `updateMessage in ${n}, indexed`,
    "sqlite file",
    update.ms,
    "ms",
    `median of ${SAMPLES}; ${reindexed}`,
  );

  const remove = await median(SAMPLES, (k) =>
    session.deleteMessages([`m${at(k, 0.25)}`]),
  );
  const length = await session.getPathLength();
  record(
    `deleteMessages (one) in ${n}, indexed`,
    "sqlite file",
    remove.ms,
    "ms",
    `median of ${SAMPLES}; path ${length === size - SAMPLES ? "repaired" : "WRONG"} (${length.toLocaleString("en")} left)`,
  );
  db.close();
}

async function forkAtDepth(dir, depth, record) {
  const n = depth.toLocaleString("en");
  const db = openSqlite(freshFile(join(dir, "fork.db")));
  const manager = SessionManager.create(db);
  const source = await manager.create("source");
  await build(manager.getSession(source.id), 0, depth);
  const forks = [];
  const fork = await median(3, async (k) => {
    const info = await manager.fork(source.id, `m${depth - 1}`, `fork ${k}`);
    forks.push(info.id);
    return info;
  });
  const copied = (await manager.getHistory(forks.at(-1))).length;
  record(
    `fork at depth ${n}`,
    "sqlite file",
    fork.ms,
    "ms",
    `median of 3, SessionManager.fork; the fork's history ${copied === depth ? "is complete" : "is WRONG"} (${copied.toLocaleString("en")} messages)`,
  );
  db.close();
}

async function appendAllAtOnce(dir, count, record) {
  const n = count.toLocaleString("en");
  const db = openSqlite(freshFile(join(dir, "append-all.db")));
  const session = Session.create(db).forSession("all");
  if (typeof session.appendAll !== "function") {
    db.close();
    record(
      `appendAll ${n} in one call`,
      "sqlite file",
      0,
      "msg/s",
      "skipped: Session has no appendAll(messages, parentId?)",
    );
    return;
  }
  const batch = Array.from({ length: count }, (_, i) => message(i));
  await session.getLatestLeaf();
  const all = await time(() => session.appendAll(batch));
  const length = await session.getPathLength();
  db.close();
  // The same messages one call each, for the ratio.
  const oneDb = openSqlite(freshFile(join(dir, "append-one.db")));
  const one = Session.create(oneDb).forSession("one");
  await one.getLatestLeaf();
  const each = await time(async () => {
    for (const entry of batch) await one.appendMessage(entry);
  });
  oneDb.close();
  const rate = count / (all.ms / 1000);
  record(
    `appendAll ${n} in one call`,
    "sqlite file",
    rate,
    "msg/s",
    `${(each.ms / all.ms).toFixed(1)}× appendMessage one by one (${Math.round(count / (each.ms / 1000))} msg/s); path ${length.toLocaleString("en")}`,
  );
}

await runAlone(import.meta.url, "write-workloads", runWriteWorkloads);
