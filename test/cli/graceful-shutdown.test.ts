// The shutdown `arbor serve` runs on SIGTERM, on a real socket in this process: it stops
// accepting, lets a request in flight finish, closes a busy keep-alive connection after its
// answer, answers 503 SHUTTING_DOWN to a request that still arrives on an open connection, cuts
// a request past the grace and an event stream, and resolves only when every connection is gone.
// A request that arrives on a keep-alive connection during the shutdown (idle or busy at the
// signal) answers 503 SHUTTING_DOWN with `Connection: close`, never a reset: its client knows it
// was not processed. An idle connection is not closed while a request is in flight, nor before
// the server has read a request already sent on it: the race of a client reusing an idle
// keep-alive connection as the shutdown closes it is reproduced here on a raw socket, driven by
// the order of events (the shutdown starting before or after the client writes), not by time.
import { createAdaptorServer } from "@hono/node-server";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { GracefulShutdown } from "../../src/cli/graceful-shutdown.js";

let server: http.Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

/**
 * A server whose `/slow?ms=n` answers after n ms, `/held` once `release()` is called, and
 * `/stream` never ends. `arrived(path)` resolves once the handler runs a request for that path:
 * a test starts the shutdown after that event, never after a pause that a loaded machine may
 * outlast.
 */
async function start(idleCloseMs = 5_000): Promise<{
  port: number;
  shutdown: GracefulShutdown;
  arrived: (pathAndQuery: string) => Promise<void>;
  release: () => void;
}> {
  let shutdown: GracefulShutdown | undefined;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const seen = new Set<string>();
  const waiting = new Map<string, () => void>();
  const arrived = (pathAndQuery: string) =>
    seen.has(pathAndQuery)
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiting.set(pathAndQuery, resolve));
  server = createAdaptorServer({
    fetch: async (request: Request) => {
      if (shutdown?.stopping) return shutdown.refusal();
      const url = new URL(request.url);
      const pathAndQuery = url.pathname + url.search;
      seen.add(pathAndQuery);
      waiting.get(pathAndQuery)?.();
      if (url.pathname === "/stream")
        return new Response(new ReadableStream({ start: () => undefined }), {
          headers: { "Content-Type": "text/event-stream" },
        });
      if (url.pathname === "/held") await released;
      await new Promise((resolve) =>
        setTimeout(resolve, Number(url.searchParams.get("ms") ?? 0)),
      );
      return new Response("done");
    },
  }) as http.Server;
  // Idle connections are closed after 5 s here (1 s by default), far beyond any pause of a
  // busy client on a loaded machine; every connection in these tests ends sooner on its own.
  shutdown = new GracefulShutdown(
    server,
    (request) => request.url === "/stream",
    idleCloseMs,
  );
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    shutdown,
    arrived,
    release,
  };
}

/** An answer read off a raw connection, or how the connection ended before one came. */
type RawOutcome =
  { status: number; connection: string; body: string } | { ended: string };

/**
 * A keep-alive connection on a raw socket, so the test decides the very moment a request is
 * written: `send(path)` writes a GET at once (on loopback the bytes are in the server's socket
 * when it returns), `answer()` resolves with the next whole answer, or with how the connection
 * ended ("end", or an error code such as ECONNRESET); `ended()` with how it ended.
 */
async function rawConnection(port: number) {
  const socket = net.connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  let buffer = "";
  let end: string | undefined;
  let wake: () => void = () => undefined;
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => {
    buffer += chunk;
    wake();
  });
  socket.on("end", () => {
    end ??= "end";
    wake();
  });
  socket.on("error", (error: NodeJS.ErrnoException) => {
    end = error.code ?? String(error);
    wake();
  });
  socket.on("close", () => {
    end ??= "close";
    wake();
  });
  const changed = () => new Promise<void>((resolve) => (wake = resolve));
  /** One whole answer at the start of `buffer` (Content-Length or chunked), taken off it. */
  const take = (): RawOutcome | undefined => {
    const head = buffer.indexOf("\r\n\r\n");
    if (head < 0) return undefined;
    const lines = buffer.slice(0, head).split("\r\n");
    const header = (name: string) =>
      lines
        .find((line) => line.toLowerCase().startsWith(`${name}:`))
        ?.slice(name.length + 1)
        .trim();
    let rest = buffer.slice(head + 4);
    let body = "";
    const length = header("content-length");
    if (length !== undefined) {
      if (rest.length < Number(length)) return undefined;
      body = rest.slice(0, Number(length));
      rest = rest.slice(Number(length));
    } else {
      for (;;) {
        const line = rest.indexOf("\r\n");
        if (line < 0) return undefined;
        const size = parseInt(rest.slice(0, line), 16);
        if (rest.length < line + 2 + size + 2) return undefined;
        body += rest.slice(line + 2, line + 2 + size);
        rest = rest.slice(line + 2 + size + 2);
        if (size === 0) break;
      }
    }
    buffer = rest;
    return {
      status: Number(lines[0]!.split(" ")[1]),
      connection: header("connection") ?? "keep-alive",
      body,
    };
  };
  return {
    send(path: string) {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    },
    async answer(): Promise<RawOutcome> {
      for (;;) {
        const next = changed();
        const answer = take();
        if (answer) return answer;
        if (end !== undefined) return { ended: end };
        await next;
      }
    },
    async ended(): Promise<string> {
      while (end === undefined) await changed();
      return end;
    },
    destroy: () => socket.destroy(),
  };
}

/** Resolves after `turns` whole turns of the event loop (each with its poll for I/O). */
async function loopTurns(turns: number): Promise<void> {
  for (let turn = 0; turn < turns; turn++)
    await new Promise((resolve) => setImmediate(resolve));
}

/** The status and code of a request's answer, or the error code of a request that got none. */
async function outcome(request: Promise<{ status: number; body: string }>) {
  try {
    const { status, body } = await request;
    return status === 200
      ? "200"
      : `${status} ${(JSON.parse(body) as { error: { code: string } }).error.code}`;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  }
}

/** One request on `agent` (keep-alive), with its status, `Connection` header and body. */
function get(
  port: number,
  path: string,
  agent: http.Agent,
): Promise<{ status: number; connection: string; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path, agent }, (response) => {
        let body = "";
        response.on("data", (chunk) => (body += chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode!,
            connection: String(response.headers.connection),
            body,
          }),
        );
        response.on("error", reject);
      })
      .on("error", reject);
  });
}

describe("GracefulShutdown", () => {
  it("finishes requests in flight, closes keep-alive connections, refuses new ones, cuts streams", async () => {
    const { port, shutdown, arrived } = await start();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    try {
      // A warm keep-alive connection, idle at the signal.
      expect((await get(port, "/slow?ms=0", agent)).connection).toBe(
        "keep-alive",
      );
      const stream = get(port, "/stream", agent).catch((error: Error) => error);
      const inFlight = get(port, "/slow?ms=150", agent);
      await Promise.all([arrived("/stream"), arrived("/slow?ms=150")]);
      let stopped = false;
      const stopping = shutdown.stop(2_000).then(() => (stopped = true));
      // No new connection is accepted.
      await expect(
        get(port, "/slow", new http.Agent({ keepAlive: false })),
      ).rejects.toMatchObject({ code: "ECONNREFUSED" });
      expect(stopped).toBe(false);
      const finished = await inFlight;
      expect([finished.status, finished.body, finished.connection]).toEqual([
        200,
        "done",
        "close",
      ]);
      await stopping;
      // The stream was cut once the last request was done, not after the whole grace.
      expect(await stream).toBeInstanceOf(Error);
    } finally {
      agent.destroy();
    }
  });

  it("cuts a request that runs past the grace", async () => {
    const { port, shutdown, arrived } = await start();
    const agent = new http.Agent({ keepAlive: true });
    try {
      const long = get(port, "/slow?ms=5000", agent).catch(
        (error: Error) => error,
      );
      await arrived("/slow?ms=5000");
      await shutdown.stop(100);
      // Cut, not answered: stop() did not wait the 5 s the request needs (no duration is
      // asserted, a loaded machine may take its time to close the socket).
      expect(await long).toBeInstanceOf(Error);
    } finally {
      agent.destroy();
    }
  });

  it("answers 503 SHUTTING_DOWN, not a reset, to a request on a keep-alive connection idle at the signal", async () => {
    const { port, shutdown, arrived } = await start();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const other = new http.Agent({ keepAlive: true });
    try {
      expect((await get(port, "/slow?ms=0", agent)).connection).toBe(
        "keep-alive",
      );
      // A request in flight keeps the shutdown going.
      const inFlight = get(port, "/slow?ms=300", other);
      await arrived("/slow?ms=300");
      const stopping = shutdown.stop(5_000);
      // Sent at once on the idle connection, as a busy client's next request is.
      const next = await get(port, "/slow?ms=0", agent);
      expect([next.status, next.connection]).toEqual([503, "close"]);
      expect(JSON.parse(next.body).error.code).toBe("SHUTTING_DOWN");
      expect((await inFlight).status).toBe(200);
      await stopping;
    } finally {
      agent.destroy();
      other.destroy();
    }
  });

  it("keeps a keep-alive connection idle at the signal open while a request is in flight, however long it has been idle, and answers the request sent on it next 503 SHUTTING_DOWN, not a reset", async () => {
    // A quiet spell of 0 ms: the connection counts as idle long enough the moment the shutdown
    // starts (the build before this closed it there, under a client about to write).
    const { port, shutdown, arrived, release } = await start(0);
    const client = await rawConnection(port);
    const held = get(port, "/held", new http.Agent({ keepAlive: false })).catch(
      (error: Error) => error,
    );
    try {
      client.send("/slow?ms=0");
      expect(await client.answer()).toMatchObject({
        status: 200,
        connection: "keep-alive",
      });
      await arrived("/held");
      const stopping = shutdown.stop(5_000);
      // Turns of the event loop pass, the drain's first checks among them, before the client
      // sends its next request on the connection.
      await loopTurns(3);
      client.send("/slow?ms=0");
      const next = await client.answer();
      expect(next).toMatchObject({ status: 503, connection: "close" });
      expect(JSON.parse((next as { body: string }).body).error.code).toBe(
        "SHUTTING_DOWN",
      );
      // The server closed the connection after its answer: an end, not a reset.
      expect(await client.ended()).toBe("end");
      release();
      expect(await held).toMatchObject({ status: 200, connection: "close" });
      await stopping;
    } finally {
      release();
      client.destroy();
    }
  });

  it("reads and refuses, not resets, a request that reached an idle keep-alive connection before the shutdown started but was not read yet", async () => {
    const { port, shutdown } = await start(0);
    const client = await rawConnection(port);
    try {
      client.send("/slow?ms=0");
      expect(await client.answer()).toMatchObject({ status: 200 });
      // The request's bytes are in the server's socket, and the shutdown starts on this same
      // turn of the event loop, before the server has read them: as when a busy process handles
      // the signal before a request that came in meanwhile. Nothing is in flight, so the
      // connection is idle to the shutdown's eyes.
      client.send("/slow?ms=0");
      const stopping = shutdown.stop(5_000);
      const next = await client.answer();
      expect(next).toMatchObject({ status: 503, connection: "close" });
      expect(await client.ended()).toBe("end");
      await stopping;
    } finally {
      client.destroy();
    }
  });

  it("busy keep-alive clients through the shutdown: each request answers 200 or 503 SHUTTING_DOWN, none is reset", async () => {
    const { port, shutdown } = await start();
    const clients = Array.from(
      { length: 8 },
      () => new http.Agent({ keepAlive: true, maxSockets: 1 }),
    );
    let stopping: Promise<void> | undefined;
    let answered = 0;
    try {
      /** Requests back to back until one answers other than 200: how it ended. */
      const loop = async (agent: http.Agent) => {
        const seen: string[] = [];
        for (;;) {
          const result = await outcome(get(port, "/slow?ms=1", agent));
          answered++;
          seen.push(result);
          if (result !== "200") return { last: result, seen: seen.length };
        }
      };
      const loops = clients.map(loop);
      // Counted, not timed: the clients are writing back to back before the signal.
      while (answered < 3 * clients.length) await loopTurns(1);
      stopping = shutdown.stop(5_000);
      const ends = await Promise.all(loops);
      await stopping;
      // After its 503 (Connection: close) a client's new connection is refused: the server no
      // longer listens. Either way it knows its request was not processed; a reset does not.
      for (const end of ends)
        expect(["503 SHUTTING_DOWN", "ECONNREFUSED"]).toContain(end.last);
    } finally {
      for (const agent of clients) agent.destroy();
    }
  });

  it("closes a keep-alive connection left idle once no request has been in flight nor arrived for idleCloseMs, then resolves", async () => {
    const { port, shutdown } = await start(100);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await get(port, "/slow?ms=0", agent);
      const socket = Object.values(agent.freeSockets)[0]![0]!;
      const closed = new Promise((resolve) => socket.once("close", resolve));
      await shutdown.stop(30_000);
      await closed;
    } finally {
      agent.destroy();
    }
  });

  it("answers 503 SHUTTING_DOWN, closing the connection, to a request after the signal", async () => {
    const { shutdown } = await start();
    const refusal = shutdown.refusal();
    expect(refusal.status).toBe(503);
    expect(refusal.headers.get("retry-after")).toBe("1");
    expect(refusal.headers.get("connection")).toBe("close");
    expect(
      ((await refusal.json()) as { error: { code: string } }).error.code,
    ).toBe("SHUTTING_DOWN");
  });
});
