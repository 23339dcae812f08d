// The pacing `arbor serve` puts on new connections, on a real Node HTTP server in this process:
// an accepted connection is not read until its turn comes, each turn lets a fixed number read
// (first come first served, a connection closed while it waits passed over), and a request on a
// connection already open is read while a burst of new ones still waits. The turns are run by the
// test (`nextTurn`), so every assertion follows the order of events, never a duration.
import { createAdaptorServer } from "@hono/node-server";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ConnectionPacing } from "../../src/cli/connection-pacing.js";

let server: http.Server | undefined;
const clients: net.Socket[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.destroy();
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

/** A server answering every request with its path, paced `perTurn` connections a turn by the test. */
async function start(perTurn: number) {
  const turns: Array<() => void> = [];
  const requests: string[] = [];
  const accepted: net.Socket[] = [];
  const waiters: Array<() => void> = [];
  const changed = () => {
    for (const wake of waiters.splice(0)) wake();
  };
  server = createAdaptorServer({
    fetch: (request) => new Response(new URL(request.url).pathname),
  }) as http.Server;
  server.on("request", (request: http.IncomingMessage) => {
    requests.push(request.url ?? "");
    changed();
  });
  const pacing = new ConnectionPacing(server, perTurn, (run) => {
    turns.push(run);
    changed();
  });
  server.on("connection", (socket: net.Socket) => {
    accepted.push(socket);
    changed();
  });
  await new Promise<void>((resolve) =>
    server!.listen(0, "127.0.0.1", () => resolve()),
  );
  const port = (server.address() as AddressInfo).port;
  /** Resolves once `ready()` holds, checked after every request, connection and turn asked for. */
  const until = async (ready: () => boolean) => {
    while (!ready()) await new Promise<void>((wake) => waiters.push(wake));
  };
  /** Runs the turn the pacing asked for, once it asked. */
  const turn = async () => {
    await until(() => turns.length > 0);
    turns.shift()!();
  };
  /** A raw connection that sends `GET path` at once. */
  const send = (path: string) => {
    const client = net.connect(port, "127.0.0.1");
    client.on("error", () => undefined);
    client.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    clients.push(client);
    return client;
  };
  return { pacing, requests, accepted, until, turn, send, port };
}

/** Lets the event loop run `count` turns (each poll phase reads what the sockets let through). */
async function loopTurns(count: number): Promise<void> {
  for (let index = 0; index < count; index++)
    await new Promise<void>((resolve) => setImmediate(resolve));
}

describe("connection pacing", () => {
  it("reads no accepted connection before its turn, then `perTurn` a turn, first come first served", async () => {
    const paced = await start(2);
    for (let index = 0; index < 5; index++) paced.send(`/c${index}`);
    await paced.until(() => paced.accepted.length === 5);
    // Their requests are in the kernel; the poll phases that follow would read them if the
    // connections were not paused.
    await loopTurns(20);
    expect(paced.requests).toEqual([]);
    expect(paced.pacing.waiting).toBe(5);
    await paced.turn();
    await paced.until(() => paced.requests.length === 2);
    await loopTurns(20);
    expect(paced.requests.sort()).toEqual(["/c0", "/c1"]);
    expect(paced.pacing.waiting).toBe(3);
    await paced.turn();
    await paced.turn();
    await paced.until(() => paced.requests.length === 5);
    expect(paced.pacing.waiting).toBe(0);
  });

  it("passes over a connection closed while it waits", async () => {
    const paced = await start(1);
    paced.send("/first");
    await paced.until(() => paced.accepted.length === 1);
    paced.send("/second");
    await paced.until(() => paced.accepted.length === 2);
    paced.accepted[0]!.destroy();
    await paced.turn();
    await paced.until(() => paced.requests.length === 1);
    expect(paced.requests).toEqual(["/second"]);
  });

  it("reads a request on an open keep-alive connection while a burst of new connections waits", async () => {
    const paced = await start(4);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<string>((resolve, reject) => {
        http
          .get(`http://127.0.0.1:${paced.port}${path}`, { agent }, (answer) => {
            let body = "";
            answer.on("data", (chunk: Buffer) => (body += chunk.toString()));
            answer.on("end", () => resolve(body));
          })
          .on("error", reject);
      });
    const first = get("/open");
    await paced.turn();
    expect(await first).toBe("/open");
    for (let index = 0; index < 100; index++) paced.send(`/burst${index}`);
    await paced.until(() => paced.accepted.length === 101);
    // The burst waits for its turns; the open connection's next request does not.
    expect(await get("/again")).toBe("/again");
    expect(paced.requests).toEqual(["/open", "/again"]);
    expect(paced.pacing.waiting).toBe(100);
    agent.destroy();
  });
});
