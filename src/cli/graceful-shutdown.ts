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

/**
 * How long the shutdown waits, once no request is in flight and none has arrived, before it
 * closes the keep-alive connections left idle.
 */
export const DEFAULT_IDLE_CLOSE_MS = 1_000;

/** The answer to a request that arrives on an open connection after the signal. */
const SHUTTING_DOWN_BODY = JSON.stringify({
  error: {
    code: "SHUTTING_DOWN",
    message: "This server is shutting down; retry on another one",
  },
});

/**
 * The shutdown of a Node HTTP server that loses no request it accepted and resets no busy client:
 * 1. stop accepting connections, and mark every answer still to be written `Connection: close`,
 *    so busy keep-alive connections end after their request;
 * 2. a request that still arrives on an open connection answers 503 `SHUTTING_DOWN` with
 *    `Connection: close`, so its client knows it was not processed, and its connection ends
 *    after that answer;
 * 3. keep-alive connections idle at the signal stay open while any request is in flight, and
 *    are closed only once no request has been in flight nor arrived for `idleCloseMs`, checked
 *    again after the event loop has read its sockets. Closing an idle connection resets a
 *    request its client is sending at that moment (ECONNRESET: the client cannot tell whether a
 *    POST was processed), a race HTTP/1.1 keep-alive leaves open; a busy client's next request
 *    arrives well within that time and gets its 503 instead, so only a client idle through the
 *    whole drain can meet the close, as it can meet Node's own keep-alive timeout any time;
 * 4. requests in flight get up to `graceMs` to finish; event streams do not count (they never
 *    finish) and are cut once the rest is done, or when the grace runs out;
 * 5. only then resolve, so the caller closes the database after the last request used it.
 */
export class GracefulShutdown {
  #stopping = false;
  readonly #inFlight = new Set<ResponseLike>();
  /** Open connections, each with its requests that have no answer yet. */
  readonly #connections = new Map<SocketLike, { busy: number }>();
  /** Requests seen, and when one last arrived or finished: the drain waits for a quiet spell. */
  #arrivals = 0;
  #lastActivity = 0;

  constructor(
    private readonly server: HttpServerLike,
    private readonly isStream: (request: RequestLike) => boolean,
    private readonly idleCloseMs = DEFAULT_IDLE_CLOSE_MS,
  ) {
    server.on("connection", (socket) => {
      this.#connections.set(socket, { busy: 0 });
      socket.once("close", () => this.#connections.delete(socket));
    });
    server.on("request", (request, response) => {
      if (this.#stopping) response.setHeader("Connection", "close");
      const connection = this.#connections.get(request.socket as SocketLike);
      if (connection) {
        connection.busy++;
        response.once("close", () => connection.busy--);
      }
      // After the signal even a stream's request is only refused: its answer is waited for.
      if (this.isStream(request) && !this.#stopping) return;
      this.#arrivals++;
      this.#lastActivity = performance.now();
      this.#inFlight.add(response);
      response.once("close", () => {
        this.#inFlight.delete(response);
        this.#lastActivity = performance.now();
      });
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
    // The quiet spell before idle connections close counts from the signal at the earliest.
    this.#lastActivity = performance.now();
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
   * Resolves once no request is in flight and every connection left is an event stream, or when
   * the grace is over. Idle connections are closed after a quiet spell (step 3), and only on the
   * loop turn after the poll phase: a request whose bytes wait in the kernel while the process
   * was busy is read (and refused) first, not reset with its connection.
   */
  #drained(graceMs: number): Promise<void> {
    return new Promise((resolve) => {
      let closing = false;
      const quiet = () =>
        this.#inFlight.size === 0 &&
        performance.now() - this.#lastActivity >= this.idleCloseMs;
      const idleConnections = () =>
        [...this.#connections].filter(([, state]) => state.busy === 0);
      const closeIdle = (arrivals: number) => {
        closing = false;
        if (this.#arrivals !== arrivals || !quiet()) return;
        for (const [socket] of idleConnections()) {
          socket.destroy();
          this.#connections.delete(socket);
        }
        check();
      };
      const check = () => {
        if (this.#inFlight.size > 0 || closing) return;
        if (idleConnections().length === 0) return done();
        if (!quiet()) return;
        closing = true;
        // Two check phases away: the second comes after a whole poll phase, which reads every
        // socket with bytes waiting (the first may come before it, in this very turn).
        const arrivals = this.#arrivals;
        setImmediate(() => setImmediate(closeIdle, arrivals));
      };
      const deadline = setTimeout(done, graceMs);
      const poll = setInterval(check, 20);
      function done() {
        clearTimeout(deadline);
        clearInterval(poll);
        resolve();
      }
      check();
    });
  }
}
