// A TCP proxy on loopback in front of `arbor serve` that drops answers on command: the ambiguous
// failure a client meets when a load balancer, a NAT or a flaky network loses the connection
// after the request went through. Each client connection is forwarded byte for byte to the
// server; `dropNext(mode)` arms the next connection to lose its answer:
//
// - "before": the client side is closed as soon as the whole request has been forwarded, before
//   any byte of the answer (the server is still working on it);
// - "while": the answer's status line and headers and half of the body that came with them are
//   forwarded, then the client side is closed.
//
// Either way the server's side stays open and the proxy reads the answer to its end, so the
// server processes the request as it would for a client that stayed; `dropNext` resolves with
// that answer (status and body), the one the client never got. Requests with a Content-Length
// only (what node:http sends for a body given at once), one per connection.
import net from "node:net";

/** Starts the proxy on a free loopback port in front of `targetUrl` (http://host:port). */
export async function startDroppingProxy(targetUrl) {
  const target = new URL(targetUrl);
  const sockets = new Set();
  let armed = null;
  const server = net.createServer((client) => {
    const drop = armed;
    armed = null;
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => socket.destroy());
      socket.on("close", () => sockets.delete(socket));
    }
    if (!drop) {
      client.pipe(upstream);
      upstream.pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
      return;
    }
    forwardRequest(client, upstream, () => {
      if (drop.mode === "before") client.destroy();
    });
    readAnswer(upstream, client, drop);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    /**
     * Arms the next connection to lose its answer ("before" or "while"); resolves with the
     * answer the server gave, `{ status, body }` (body as text), once it has been read.
     */
    dropNext(mode) {
      if (mode !== "before" && mode !== "while")
        throw new Error(`unknown drop mode ${mode}`);
      return new Promise((resolve, reject) => {
        armed = { mode, resolve, reject };
      });
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Forwards the client's request to `upstream`; calls `forwarded()` once the whole request (its
 * headers and Content-Length bytes of body) has been written to it. The client side is not
 * closed by the proxy until then.
 */
function forwardRequest(client, upstream, forwarded) {
  let seen = Buffer.alloc(0);
  let total = null;
  let sent = 0;
  let done = false;
  client.on("data", (chunk) => {
    if (done) return;
    if (total === null) {
      seen = Buffer.concat([seen, chunk]);
      const end = seen.indexOf("\r\n\r\n");
      if (end >= 0) {
        const head = seen.subarray(0, end).toString("latin1");
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        total = end + 4 + (length ? Number(length[1]) : 0);
      }
    }
    sent += chunk.length;
    const complete = total !== null && sent >= total;
    if (complete) done = true;
    upstream.write(chunk, () => {
      if (complete) forwarded();
    });
  });
}

/**
 * Reads the server's answer to its end (by its Content-Length, or chunked, or until the server
 * closes); in "while" mode forwards its head and half of the first body bytes to the client,
 * then closes the client. Resolves `drop` with `{ status, body }`.
 */
function readAnswer(upstream, client, drop) {
  let received = Buffer.alloc(0);
  let cutDone = drop.mode === "before";
  let settled = false;
  const settle = () => {
    if (settled) return;
    const answer = parseAnswer(received);
    if (!answer.complete && !upstream.destroyed) return;
    settled = true;
    upstream.destroy();
    if (!cutDone) client.destroy();
    if (answer.status === undefined)
      drop.reject(new Error("the server closed without an answer"));
    else drop.resolve({ status: answer.status, body: answer.body });
  };
  upstream.on("data", (chunk) => {
    received = Buffer.concat([received, chunk]);
    if (!cutDone) {
      const end = received.indexOf("\r\n\r\n");
      if (end >= 0) {
        const body = received.length - (end + 4);
        // The head and half of the body bytes that came with it (at least the head).
        client.write(received.subarray(0, end + 4 + Math.floor(body / 2)));
        client.destroy();
        cutDone = true;
      }
    }
    settle();
  });
  upstream.on("close", settle);
}

/** A raw HTTP/1.1 answer: status, body text, and whether all of it has arrived. */
function parseAnswer(raw) {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) return { complete: false };
  const head = raw.subarray(0, end).toString("latin1");
  const status = Number(/^HTTP\/1\.[01] (\d+)/.exec(head)?.[1]);
  const rest = raw.subarray(end + 4);
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) {
    const size = Number(length[1]);
    return {
      status,
      complete: rest.length >= size,
      body: rest.subarray(0, size).toString("utf8"),
    };
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    const parts = [];
    let at = 0;
    for (;;) {
      const line = rest.indexOf("\r\n", at);
      if (line < 0) return { status, complete: false };
      const size = parseInt(rest.subarray(at, line).toString("latin1"), 16);
      if (size === 0)
        return {
          status,
          complete: true,
          body: Buffer.concat(parts).toString("utf8"),
        };
      if (rest.length < line + 2 + size + 2) return { status, complete: false };
      parts.push(rest.subarray(line + 2, line + 2 + size));
      at = line + 2 + size + 2;
    }
  }
  // No length: the body ends when the server closes.
  return { status, complete: false, body: rest.toString("utf8") };
}
