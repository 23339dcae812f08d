// A large history over a real socket (@hono/node-server, SQLite): the answer is written window by
// window as the client reads, so a client that reads nothing holds at most a stated number of
// bytes in the process, the store is read only as far as the client got, a reader that
// disconnects stops the reads, and beside 500 such readers (the default limits of `arbor serve`)
// a normal client is served request after request while none of them has finished. Counts and
// bounds only; the 500 take 15-20 s to connect on a loaded 2-core machine, 4 s beside readers of
// one-window answers (docs/benchmarks.md#slow-readers-of-a-large-history). The rows the store returned are counted by a pass-through `sql`
// (the real SQLite statements run). No timing: every wait is for a state, not for a duration.
import { serve, type ServerType } from "@hono/node-server";
import net, { type AddressInfo, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STREAMED_PIECE_BYTES } from "../../src/server/responses/streamed-json.js";
import { createApp } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/index.js";
import { largeSession } from "./support/large-session.js";

/** Messages of the large session, and the text bytes of each: 10 MiB in all, more than the kernel buffers of a loopback socket take. */
const MESSAGES = 640;
const TEXT_BYTES = 16 * 1024;
/**
 * What one connection may hold in the process while its client reads nothing: the Node adapter
 * takes up to three pieces before it starts waiting for the socket to drain, plus the socket's
 * own 16 KiB high-water mark. A whole-body answer holds everything the kernel did not take.
 */
const BOUND_BYTES = 3 * (STREAMED_PIECE_BYTES + TEXT_BYTES) + 16 * 1024;

let db: SqliteHandle;
let server: ServerType;
/** The same store behind the default limits: what `arbor serve` admits. */
let crowdServer: ServerType;
let port = 0;
let crowdPort = 0;
let sessionId = "";
/** A history of one window: what a normal client reads. */
let smallId = "";
/** Rows of large messages the store returned (`content` holds a message's JSON). */
let messageRowsRead = 0;
const serverSockets: Socket[] = [];
const crowdSockets: Socket[] = [];

beforeAll(async () => {
  db = openSqlite(":memory:");
  const counted = {
    sql<Row = Record<string, unknown>>(
      strings: TemplateStringsArray,
      ...values: unknown[]
    ): Row[] {
      const rows = db.sql<Row>(strings, ...values);
      for (const row of rows as Array<Record<string, unknown>>)
        if (typeof row?.content === "string" && row.content.length > TEXT_BYTES)
          messageRowsRead++;
      return rows;
    },
    transaction: <T>(fn: () => T): T => db.transaction(fn),
  };
  const manager = SessionManager.create(counted);
  sessionId = await largeSession(manager, {
    count: MESSAGES,
    text: (index) => `${index} `.padEnd(TEXT_BYTES, "x"),
  });
  smallId = (await manager.create("Small")).id;
  for (let index = 0; index < 4; index++)
    await manager.getSession(smallId).appendMessage({
      id: `s${index}`,
      role: index % 2 ? "assistant" : "user",
      parts: [{ type: "text", text: `small ${index}` }],
    });
  server = serve({
    fetch: createApp({ manager, maxInFlight: 1, queueTimeoutMs: 60_000 }).fetch,
    hostname: "127.0.0.1",
    port: 0,
  });
  server.on("connection", (socket: Socket) => serverSockets.push(socket));
  await new Promise((resolve) => server.once("listening", resolve));
  port = (server.address() as AddressInfo).port;
  crowdServer = serve({
    fetch: createApp({ manager }).fetch,
    hostname: "127.0.0.1",
    port: 0,
  });
  crowdServer.on("connection", (socket: Socket) => crowdSockets.push(socket));
  await new Promise((resolve) => crowdServer.once("listening", resolve));
  crowdPort = (crowdServer.address() as AddressInfo).port;
}, 60_000);

afterAll(async () => {
  for (const open of [server, crowdServer])
    await new Promise((resolve) => {
      open.close(resolve);
      (open as { closeAllConnections?: () => void }).closeAllConnections?.();
    });
  db.close();
});

/** Sends the request on a raw socket and never reads the answer (past the kernel's buffers). */
async function stalledReader(path: string): Promise<Socket> {
  const before = serverSockets.length;
  const socket = net.connect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.pause();
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  while (serverSockets.length === before) await tick();
  return socket;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe("a large history to a client that reads nothing", () => {
  it("holds at most the bound per connection, reads the store only as far as the client got, and stops at a disconnect", async () => {
    messageRowsRead = 0;
    const client = await stalledReader(`/v1/sessions/${sessionId}/history`);
    const served = serverSockets.at(-1)!;
    // The answer stalls once the socket refuses more: the writer waits for a drain that does
    // not come. (A whole-body answer stalls too, with the rest of the body in the process.)
    while (!served.writableNeedDrain) await tick();
    expect(served.writableLength).toBeLessThanOrEqual(BOUND_BYTES);
    // The kernel's socket buffers took part of the answer; the store was read only that far.
    expect(messageRowsRead).toBeGreaterThan(0);
    expect(messageRowsRead).toBeLessThan(MESSAGES);

    // Other requests are served meanwhile, with one request slot: a slow reader holds none.
    const leaf = await fetch(
      `http://127.0.0.1:${port}/v1/sessions/${sessionId}/leaf`,
    );
    expect(leaf.status).toBe(200);
    const { message } = (await leaf.json()) as { message: { id: string } };
    expect(message.id).toBe(`m${MESSAGES - 1}`);
    const readWhileStalled = messageRowsRead;

    client.destroy();
    await new Promise((resolve) =>
      served.destroyed ? resolve(undefined) : served.once("close", resolve),
    );
    // Give the cancelled answer every chance to go on reading: it must not.
    for (let index = 0; index < 10; index++) await tick();
    expect(messageRowsRead).toBe(readWhileStalled);
  });

  it("ten readers that read nothing hold no request slot: with one slot a normal request is still answered", async () => {
    const clients: Socket[] = [];
    const servedSockets: Socket[] = [];
    for (let index = 0; index < 10; index++) {
      clients.push(await stalledReader(`/v1/sessions/${sessionId}/history`));
      const served = serverSockets.at(-1)!;
      servedSockets.push(served);
      // Each answer under way and blocked on its socket, or still waiting for its first window.
      while (!served.writableNeedDrain && served.bytesWritten === 0)
        await tick();
    }
    const leaf = await fetch(
      `http://127.0.0.1:${port}/v1/sessions/${sessionId}/leaf`,
    );
    expect(leaf.status).toBe(200);
    for (const client of clients) client.destroy();
    await Promise.all(
      servedSockets.map(
        (served) =>
          new Promise((resolve) =>
            served.destroyed
              ? resolve(undefined)
              : served.once("close", resolve),
          ),
      ),
    );
    for (let index = 0; index < 10; index++) await tick();
  });

  it("500 readers that read nothing: a normal client is served again and again while none of them has finished, each within the bound", async () => {
    messageRowsRead = 0;
    const readers: Socket[] = [];
    const finished = new Set<number>();
    for (let index = 0; index < 500; index++) {
      const socket = net.connect(crowdPort, "127.0.0.1");
      socket.on("error", () => undefined);
      // The end of a chunked answer: its last chunk. Never seen here, since nothing is read
      // past the first bytes; watched so that "none has finished" is observed, not assumed.
      socket.once("end", () => finished.add(index));
      socket.once("connect", () =>
        socket.write(
          `GET /v1/sessions/${sessionId}/history HTTP/1.1\r\nHost: 127.0.0.1:${crowdPort}\r\n\r\n`,
        ),
      );
      socket.pause();
      readers.push(socket);
    }
    while (crowdSockets.length < 500) await tick();
    // The normal client, one request after the other, while the 500 answers are under way.
    const served: string[] = [];
    for (let index = 0; index < 20; index++) {
      const answer = await fetch(
        `http://127.0.0.1:${crowdPort}/v1/sessions/${smallId}/history`,
      );
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as { leafId: string };
      served.push(body.leafId);
    }
    expect(served).toEqual(Array(20).fill("s3"));
    expect(finished.size).toBe(0);
    // Each of the 500 connections holds at most the bound in the process, and the store was not
    // read to the end for them (the kernel's buffers take a part of each answer, not all).
    for (const socket of crowdSockets)
      expect(socket.writableLength).toBeLessThanOrEqual(BOUND_BYTES);
    expect(messageRowsRead).toBeLessThan(500 * MESSAGES);
    for (const reader of readers) reader.destroy();
    await Promise.all(
      crowdSockets.map(
        (socket) =>
          new Promise((resolve) =>
            socket.destroyed
              ? resolve(undefined)
              : socket.once("close", resolve),
          ),
      ),
    );
  }, 60_000);

  it("a client that reads gets the whole history as one JSON answer", async () => {
    messageRowsRead = 0;
    const answer = await fetch(
      `http://127.0.0.1:${port}/v1/sessions/${sessionId}/history`,
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toContain("application/json");
    const body = (await answer.json()) as {
      messages: Array<{ id: string; parts: Array<{ text: string }> }>;
      leafId: string;
    };
    expect(body.leafId).toBe(`m${MESSAGES - 1}`);
    expect(body.messages.map((message) => message.id)).toEqual(
      Array.from({ length: MESSAGES }, (_, index) => `m${index}`),
    );
    expect(body.messages[7]!.parts[0]!.text).toBe("7 ".padEnd(TEXT_BYTES, "x"));
    // Every message once, and the leaf row the answer started from.
    expect(messageRowsRead).toBe(MESSAGES + 1);
  });
});
