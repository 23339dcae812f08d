/**
 * At most `limit` reads at once, the rest waiting by priority: the store reads that streamed
 * answers make (docs/server.md#large-answers). Those reads run outside the request slots
 * (`maxInFlight`), which are given back when an answer starts; unbounded, a few hundred streams
 * that readers drain as fast as the kernel buffers take them would each keep a database
 * connection busy, and every new request would wait behind them for one. Gated, a new request
 * waits behind at most `limit` of them.
 *
 * A waiting read with a lower `priority` goes first, then first come first served: a stream
 * passes the number of windows it has read, so a short answer (one window) goes ahead of the
 * long ones already under way instead of queueing behind every one of their windows, and the
 * long ones share what is left, oldest first.
 */
export class ReadGate {
  #running = 0;
  #arrivals = 0;
  readonly #waiting: Array<{
    priority: number;
    arrival: number;
    start: () => void;
  }> = [];

  constructor(private readonly limit: number) {}

  /** Runs `read` once fewer than `limit` gated reads run and no read of lower priority waits. */
  async run<T>(read: () => Promise<T>, priority = 0): Promise<T> {
    if (this.#running >= this.limit) {
      await new Promise<void>((start) => {
        const entry = { priority, arrival: this.#arrivals++, start };
        // Kept sorted: the first waiter is the next to run.
        let index = this.#waiting.length;
        while (index > 0 && this.#waiting[index - 1]!.priority > entry.priority)
          index--;
        this.#waiting.splice(index, 0, entry);
      });
    } else this.#running++;
    try {
      return await read();
    } finally {
      // The turn passes to the next waiter directly, so `running` never drops in between, but
      // on a later turn of the event loop: handed on at once, hundreds of waiting reads (each
      // also parsing and serializing its window) would run back to back while new requests
      // wait for the loop. (A timer, not `setImmediate`: the same code runs in workerd.)
      const next = this.#waiting.shift();
      if (next) setTimeout(next.start, 0);
      else this.#running--;
    }
  }
}
