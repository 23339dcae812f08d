import net from "node:net";

/** The part of a Node `http.Server` the shutdown uses (no `node:http` types in the build's d.ts). */
export interface HttpServerLike {
  on(
    event: "request",
    listener: (request: RequestLike, response: ResponseLike) => void,
  ): unknown;
  on(event: "connection", listener: (socket: SocketLike) => void): unknown;
  close(callback: () => void): unknown;
  closeAllConnections(): void;
}

/** The request fields the shutdown reads. */
export interface RequestLike {
  method?: string | undefined;
  url?: string | undefined;
  socket?: unknown;
}

/** The response members the shutdown uses. */
export interface ResponseLike {
  readonly headersSent: boolean;
  setHeader(name: string, value: string): unknown;
  once(event: "close", listener: () => void): unknown;
}

/** The connection members the shutdown uses. */
export interface SocketLike {
  destroy(): unknown;
  once(event: "close", listener: () => void): unknown;
}

/** How long a keep-alive connection must have been idle before the shutdown closes it. */
export const DEFAULT_IDLE_CLOSE_MS = 1_000;

/** The answer to a request that arrives on an open connection after the signal. */
const SHUTTING_DOWN_BODY = JSON.stringify({
  error: {
    code: "SHUTTING_DOWN",
    message: "This server is shutting down; retry on another one",
  },
});

/**
 * The shutdown of a Node HTTP server that loses no request it accepted and resets no client:
 * 1. stop accepting connections, and mark every answer still to be written `Connection: close`,
 *    so busy keep-alive connections end after their request;
 * 2. a request that still arrives on an open connection answers 503 `SHUTTING_DOWN` with
 *    `Connection: close`, so its client knows it was not processed;
 * 3. a keep-alive connection is closed once it has been idle for `idleCloseMs`, not at the
 *    signal: a busy client's connection is idle for a moment between two requests, and closing
 *    it then resets the request it is sending (ECONNRESET, which leaves the client unable to
 *    tell whether a POST was processed). A connection idle that long belongs to a client between
 *    bursts, which closing it then risks no more than Node's own keep-alive timeout does;
 * 4. requests in flight get up to `graceMs` to finish; event streams do not count (they never
 *    finish) and are cut once the rest is done, or when the grace runs out;
 * 5. only then resolve, so the caller closes the database after the last request used it.
 */
export class GracefulShutdown {
  #stopping = false;
  readonly #inFlight = new Set<ResponseLike>();
  /** Open connections: requests without an answer yet on each, and since when it has had none. */
  readonly #connections = new Map<
    SocketLike,
    { busy: number; idleSince: number }
  >();

  constructor(
    private readonly server: HttpServerLike,
    private readonly isStream: (request: RequestLike) => boolean,
    private readonly idleCloseMs = DEFAULT_IDLE_CLOSE_MS,
  ) {
    server.on("connection", (socket) => {
      this.#connections.set(socket, { busy: 0, idleSince: Date.now() });
      socket.once("close", () => this.#connections.delete(socket));
    });
    server.on("request", (request, response) => {
      if (this.#stopping) response.setHeader("Connection", "close");
      const connection = this.#connections.get(request.socket as SocketLike);
      if (connection) {
        connection.busy++;
        response.once("close", () => {
          connection.busy--;
          connection.idleSince = Date.now();
        });
      }
      if (this.isStream(request)) return;
      this.#inFlight.add(response);
      response.once("close", () => this.#inFlight.delete(response));
    });
  }

  /** True once `stop()` was called: the fetch handler answers `refusal()` instead. */
  get stopping(): boolean {
    return this.#stopping;
  }

  /** 503 `SHUTTING_DOWN`, closing its connection. */
  refusal(): Response {
    return new Response(SHUTTING_DOWN_BODY, {
      status: 503,
      headers: {
        "Content-Type": "application/json",
        "Retry-After": "1",
        Connection: "close",
      },
    });
  }

  /** Runs the shutdown; resolves when every connection is closed. */
  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    // `http.Server#close` would also close the idle keep-alive connections at once (step 3):
    // the listening socket alone stops here.
    const closed = new Promise<void>((resolve) =>
      net.Server.prototype.close.call(this.server, () => resolve()),
    );
    for (const response of this.#inFlight)
      if (!response.headersSent) response.setHeader("Connection", "close");
    await this.#drained(graceMs);
    // Event streams, and requests past the grace: cut.
    this.server.closeAllConnections();
    await closed;
  }

  // --- Internal helpers ---

  /**
   * Resolves once no request is in flight and every connection left is an event stream, closing
   * keep-alive connections as they reach `idleCloseMs` of idleness; or when the grace is over.
   */
  #drained(graceMs: number): Promise<void> {
    return new Promise((resolve) => {
      const deadline = setTimeout(done, graceMs);
      const poll = setInterval(check, 20);
      const connections = this.#connections;
      const inFlight = this.#inFlight;
      const idleCloseMs = this.idleCloseMs;
      function check() {
        const now = Date.now();
        let idle = 0;
        for (const [socket, state] of connections) {
          if (state.busy > 0) continue;
          if (now - state.idleSince >= idleCloseMs) socket.destroy();
          else idle++;
        }
        if (inFlight.size === 0 && idle === 0) done();
      }
      function done() {
        clearTimeout(deadline);
        clearInterval(poll);
        resolve();
      }
      check();
    });
  }
}
