/** The part of a Node `net.Server` (an `http.Server`) the pacing uses. */
export interface ListeningServerLike {
  /**
   * Node's own flag (`net.Server`, set from its `pauseOnConnect` option and read at every
   * accept): a connection accepted while it is set starts paused. Not in Node's types.
   */
  pauseOnConnect?: boolean;
  on(
    event: "connection",
    listener: (socket: PausedSocketLike) => void,
  ): unknown;
}

/** The connection members the pacing uses. */
export interface PausedSocketLike {
  readonly destroyed: boolean;
  resume(): unknown;
}

/** New connections let read per turn of the event loop, by default. */
export const DEFAULT_CONNECTIONS_PER_TURN = 8;

/**
 * Admits a burst of new connections a few per turn of the event loop, so that the requests of
 * connections already open are read between them.
 *
 * Node accepts every connection waiting in the kernel in one turn of its event loop, and on the
 * next reads and parses every request that came on them, running each request's handler as far
 * as its first wait: 500 clients connecting at once cost one turn of hundreds of request parses
 * and route lookups, and a request on a keep-alive connection that came meanwhile was read only
 * after all of them (the slowest requests of a normal client beside 500 new readers of a large
 * history all fell in the second the 500 arrived: docs/benchmarks.md). Here each accepted
 * connection starts paused (Node's `pauseOnConnect`, set on the listening server before it
 * listens; the HTTP server still sets up its parser at once) and waits in a queue, first come
 * first served; each turn of the loop lets `perTurn` of them read, in the turn's check phase, so
 * every poll phase reads at most `perTurn` new connections beside whatever arrived on the
 * connections already open. A connection closed while it waits is passed over.
 *
 * The cost is the burst's own: its last connections are read a few hundred turns later (a
 * turn takes well under a millisecond while the process is idle). Connections are not refused
 * and the kernel's accept queue is drained as before; what waits here is a paused socket each.
 */
export class ConnectionPacing {
  readonly #waiting: PausedSocketLike[] = [];
  /** Index of the first socket still waiting (a queue without shifting the array). */
  #head = 0;
  #scheduled = false;

  constructor(
    server: ListeningServerLike,
    private readonly perTurn = DEFAULT_CONNECTIONS_PER_TURN,
    private readonly nextTurn: (run: () => void) => void = setImmediate,
  ) {
    server.pauseOnConnect = true;
    server.on("connection", (socket) => this.#admit(socket));
  }

  /** Accepted connections not let read yet. */
  get waiting(): number {
    return this.#waiting.length - this.#head;
  }

  // --- Internal helpers ---

  #admit(socket: PausedSocketLike): void {
    this.#waiting.push(socket);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || this.waiting === 0) return;
    this.#scheduled = true;
    this.nextTurn(() => {
      this.#scheduled = false;
      let resumed = 0;
      while (resumed < this.perTurn && this.#head < this.#waiting.length) {
        const socket = this.#waiting[this.#head++]!;
        if (socket.destroyed) continue;
        socket.resume();
        resumed++;
      }
      // Drop what was let read once it is most of the array, so a queue that never empties
      // does not grow for ever.
      if (this.#head * 2 >= this.#waiting.length) {
        this.#waiting.splice(0, this.#head);
        this.#head = 0;
      }
      this.#schedule();
    });
  }
}
