/** The part of a Node `http.Server` the shutdown uses (no `node:http` types in the build's d.ts). */
export interface HttpServerLike {
  on(
    event: "request",
    listener: (request: RequestLike, response: ResponseLike) => void,
  ): unknown;
  close(callback: () => void): unknown;
  closeIdleConnections(): void;
  closeAllConnections(): void;
}

/** The request fields the shutdown reads. */
export interface RequestLike {
  method?: string | undefined;
  url?: string | undefined;
}

/** The response members the shutdown uses. */
export interface ResponseLike {
  readonly headersSent: boolean;
  setHeader(name: string, value: string): unknown;
  once(event: "close", listener: () => void): unknown;
}

/** The answer to a request that arrives on an open connection after the signal. */
const SHUTTING_DOWN_BODY = JSON.stringify({
  error: {
    code: "SHUTTING_DOWN",
    message: "This server is shutting down; retry on another one",
  },
});

/**
 * The shutdown of a Node HTTP server that loses no request it accepted:
 * 1. stop accepting connections, close the idle keep-alive ones, and mark every answer still
 *    to be written `Connection: close`, so busy keep-alive connections end after their request;
 * 2. a request that still arrives (on a connection opened before) answers 503 `SHUTTING_DOWN`;
 * 3. requests in flight get up to `graceMs` to finish; event streams do not count (they never
 *    finish) and are cut once the rest is done, or when the grace runs out;
 * 4. only then resolve, so the caller closes the database after the last request used it.
 */
export class GracefulShutdown {
  #stopping = false;
  readonly #inFlight = new Set<ResponseLike>();

  constructor(
    private readonly server: HttpServerLike,
    private readonly isStream: (request: RequestLike) => boolean,
  ) {
    server.on("request", (request, response) => {
      if (this.#stopping) response.setHeader("Connection", "close");
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
    const closed = new Promise<void>((resolve) =>
      this.server.close(() => resolve()),
    );
    this.server.closeIdleConnections();
    for (const response of this.#inFlight)
      if (!response.headersSent) response.setHeader("Connection", "close");
    await this.#drained(graceMs);
    // Event streams, and requests past the grace: cut.
    this.server.closeAllConnections();
    await closed;
  }

  // --- Internal helpers ---

  #drained(graceMs: number): Promise<void> {
    return new Promise((resolve) => {
      const deadline = setTimeout(done, graceMs);
      const poll = setInterval(() => {
        if (this.#inFlight.size === 0) done();
      }, 20);
      function done() {
        clearTimeout(deadline);
        clearInterval(poll);
        resolve();
      }
      if (this.#inFlight.size === 0) done();
    });
  }
}
