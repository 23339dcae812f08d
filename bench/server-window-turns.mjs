// `node bench/server-window-turns.mjs` (after `npm run build`): READERS clients (default 200) at
// once each read a large history (MESSAGES messages of 10 KB, default 300: about 3 MB) in full
// from one server in this process (SQLite in memory, @hono/node-server), and what that cost in
// figures that do not depend on the machine's speed or load: the windows started per turn of the
// event loop (the serialization and writes a new request can wait behind, counted between two
// runs of a check-phase callback that re-arms itself, once per turn), the most bytes encoded in
// one turn, and what the garbage collector did (`v8.GCProfiler`): bytes the scavenges promoted
// per byte written, the scavenges and the collections of the old generation. Pause times are
// printed too but depend on the load. `DIST` names another build's `dist/` (say a copy of main's
// under `node_modules/`, where its imports resolve) to compare two builds. Not a test.
import { serve } from "@hono/node-server";
import net from "node:net";
import { GCProfiler } from "node:v8";

const DIST = process.env.DIST ?? new URL("../dist", import.meta.url).pathname;
const { createApp } = await import(`${DIST}/server/index.js`);
const { SessionManager } = await import(`${DIST}/session/index.js`);
const { openSqlite } = await import(`${DIST}/sqlite/index.js`);
const MESSAGES = Number(process.env.MESSAGES ?? 300);
const READERS = Number(process.env.READERS ?? 200);
const TEXT = 10_000;

const db = openSqlite(":memory:");
const manager = SessionManager.create(db);
const id = (await manager.create("Large")).id;
const session = manager.getSession(id);
for (let index = 0; index < MESSAGES; index++)
  await session.appendMessage({
    id: `m${index}`,
    role: index % 2 ? "assistant" : "user",
    parts: [{ type: "text", text: `${index} `.padEnd(TEXT, "words ") }],
  });
const server = serve({
  fetch: createApp({ manager }).fetch,
  hostname: "127.0.0.1",
  port: 0,
});
await new Promise((resolve) => server.once("listening", resolve));
const port = server.address().port;
const statuses = {};
/** The whole answer on a raw socket, counted and dropped as it comes; its byte count. */
const reader = (path) =>
  new Promise((resolve, reject) => {
    let received = 0;
    let head = true;
    const socket = net.connect(port, "127.0.0.1", () =>
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
      ),
    );
    socket.on("data", (chunk) => {
      if (head) {
        head = false;
        const status = chunk.toString("latin1", 9, 12);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
      received += chunk.length;
    });
    socket.once("end", () => resolve(received));
    socket.once("error", reject);
  });
const path = `/v1/sessions/${id}/history`;
// One answer first: the history is then known large, and the code warm.
await reader(path);

// Windows are encoded once each (a piece of 4 KB or more); the turns are counted by a callback
// of the check phase, which runs once per turn of the loop, after its poll phase.
let windowsThisTurn = 0;
let bytesThisTurn = 0;
const turns = [];
const encode = TextEncoder.prototype.encode;
TextEncoder.prototype.encode = function (text) {
  const bytes = encode.call(this, text);
  if (bytes.length >= 4096) {
    windowsThisTurn++;
    bytesThisTurn += bytes.length;
  }
  return bytes;
};
let counting = true;
const turn = () => {
  if (windowsThisTurn > 0) turns.push([windowsThisTurn, bytesThisTurn]);
  windowsThisTurn = 0;
  bytesThisTurn = 0;
  if (counting) setImmediate(turn);
};
setImmediate(turn);

const profiler = new GCProfiler();
profiler.start();
const received = await Promise.all(
  Array.from({ length: READERS }, () => reader(path)),
);
const { statistics } = profiler.stop();
counting = false;

const OLD = new Set(["old_space", "code_space", "map_space"]);
const old = (spaces) =>
  spaces
    .filter((space) => OLD.has(space.spaceName))
    .reduce((sum, space) => sum + space.spaceUsedSize, 0);
const written = received.reduce((sum, bytes) => sum + bytes, 0);
const scavenges = statistics.filter((gc) => gc.gcType === "Scavenge");
const full = statistics.filter((gc) => gc.gcType !== "Scavenge");
const promoted = scavenges.reduce(
  (sum, gc) =>
    sum +
    Math.max(
      0,
      old(gc.afterGC.heapSpaceStatistics) -
        old(gc.beforeGC.heapSpaceStatistics),
    ),
  0,
);
const ms = (list) =>
  Number((list.reduce((sum, gc) => sum + gc.cost, 0) / 1000).toFixed(1));
const windowsPerTurn = {};
for (const [windows] of turns)
  windowsPerTurn[windows] = (windowsPerTurn[windows] ?? 0) + 1;
console.log(
  JSON.stringify(
    {
      readers: READERS,
      statuses,
      writtenMB: Number((written / 2 ** 20).toFixed(1)),
      turnsWithWindows: turns.length,
      windowsPerTurn,
      mostBytesInOneTurn: Math.max(...turns.map(([, bytes]) => bytes)),
      promotedMB: Number((promoted / 2 ** 20).toFixed(1)),
      promotedPerByteWritten: Number((promoted / written).toFixed(4)),
      scavenges: scavenges.length,
      oldGenerationCollections: full.length,
      pausesMs: { scavenges: ms(scavenges), oldGeneration: ms(full) },
    },
    null,
    2,
  ),
);
server.close();
db.close();
process.exit(0);
