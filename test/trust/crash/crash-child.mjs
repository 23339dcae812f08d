// The process the crash test (test/trust/crash.int.test.ts) kills with SIGKILL: it appends,
// updates, deletes, erases and searches one session of a SQLite file in a loop, as fast as it
// can, through a SessionManager. Before each write it prints "BEGIN <op> <id> <text>", and once
// the write has returned (committed) "ACK <op> <id> <text>". It runs Arbor's sources, transpiled
// by the test into <modules>. Usage:
//   node crash-child.mjs <modules> <database file> <run name> <seed>
const [modules, file, run, seedText] = process.argv.slice(2);
const { openSqlite } = await import(`${modules}/sqlite/open-sqlite.js`);
const { SessionManager } = await import(`${modules}/session/index.js`);

const SESSION = "crash";
let seed = Number(seedText) >>> 0;
const random = (n) => {
  // mulberry32: a small seeded generator, so a failing run can be replayed.
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * n;
};
const say = (line) => process.stdout.write(`${line}\n`);

const database = openSqlite(file);
const manager = SessionManager.create(database);
const session = manager.getSession(SESSION);
// Two pools: kept messages may be deleted, erasable ones erased; both are updated, and an erase
// must leave no trace of any text the message ever had (FTS5 secure-delete, schema v7).
const erasable = [];
const kept = (await session.getHistory())
  .map((m) => m.id)
  .filter((id) => !id.startsWith("compaction_"));
say("READY");

for (let n = 0; ; n++) {
  const roll = random(100);
  const id = `${run}n${n}`;
  if (roll < 55 || kept.length + erasable.length < 3) {
    const pool = roll < 25 ? erasable : kept;
    const text = `${pool === erasable ? "erasable" : "kept"}${id}x${seed}`;
    say(`BEGIN append ${id} ${text}`);
    await session.appendMessage({
      id,
      role: n % 2 ? "user" : "assistant",
      parts: [{ type: "text", text }],
    });
    pool.push(id);
    say(`ACK append ${id} ${text}`);
  } else if (roll < 70 && kept.length + erasable.length > 0) {
    const pool = [...kept, ...erasable];
    const target = pool[Math.floor(random(pool.length))];
    const text = `updated${id}x${seed}`;
    say(`BEGIN update ${target} ${text}`);
    await session.updateMessage({
      id: target,
      role: "user",
      parts: [{ type: "text", text }],
    });
    say(`ACK update ${target} ${text}`);
  } else if (roll < 78 && kept.length > 0) {
    const [target] = kept.splice(Math.floor(random(kept.length)), 1);
    say(`BEGIN delete ${target} -`);
    await session.deleteMessages([target]);
    say(`ACK delete ${target} -`);
  } else if (roll < 92 && erasable.length > 0) {
    const [target] = erasable.splice(Math.floor(random(erasable.length)), 1);
    say(`BEGIN erase ${target} -`);
    await manager.erase({ sessionId: SESSION, messageIds: [target] });
    say(`ACK erase ${target} -`);
  } else {
    // A search catches the FTS index up in one transaction: kills land inside it too.
    await session.search("kept");
    const all = [...kept, ...erasable];
    if (roll > 96 && all.length > 1)
      await session.addCompaction(`summary ${id}`, all[0], all.at(-1));
  }
}
