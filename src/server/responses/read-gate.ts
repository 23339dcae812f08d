/**
 * The turns of the work streamed answers do after their request slot was given back: reading a
 * window from the store, serializing it and handing it to the socket (docs/server.md#large-answers).
 *
 * At most `limit` windows are worked on at once, and a turn is always given on a later turn of
 * the event loop, never straight away. That is what keeps a new request's wait short beside
 * hundreds of readers of large answers: on loopback the kernel takes megabytes per socket, so a
 * "slow" reader drains every window at once, and a window produced as soon as the last one was
 * written chained the whole answer (megabytes of reads and serialization, SQLite's synchronous)
 * through promise callbacks with no return to the event loop; hundreds of them held new requests
 * for seconds. Given out by a timer, at most `limit` windows run per turn of the loop, and every
 * request that arrived meanwhile is read and answered in between.
 *
 * A waiting window with a lower `priority` goes first, then first come first served: the first
 * window of an answer (priority 0) goes ahead of the later windows of answers under way, and a
 * stream passes the number of windows it has read, so a short answer is not queued behind every
 * window of the long ones, which share what is left, oldest first. A waiter whose `signal`
 * aborts (its client went away) leaves the queue at once and never runs.
 */
export class ReadGate {
  #running = 0;
  /** Turns promised by a timer that has not fired yet. */
  #granting = 0;
  readonly #waiting: Waiter[] = [];

  constructor(private readonly limit: number) {}

  /** Windows being worked on now. */
  get running(): number {
    return this.#running;
  }

  /** Windows waiting for a turn now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Runs `read` on a later turn of the event loop, once fewer than `limit` gated reads run and
   * no read of lower priority waits. Rejects with the signal's reason, without running `read`,
   * if `signal` aborts first.
   */
  async run<T>(
    read: () => Promise<T>,
    priority = 0,
    signal?: AbortSignal,
  ): Promise<T> {
    await this.#turn(priority, signal);
    const started = performance.now();
    try {
      return await read();
    } finally {
      this.#running--;
      this.#grant(performance.now() - started);
    }
  }

  // --- Internal helpers ---

  #turn(priority: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.#waiting.indexOf(entry);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(abortReason(signal!));
      };
      const entry: Waiter = {
        priority,
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      // Kept sorted: the first waiter is the next to run.
      let index = this.#waiting.length;
      while (index > 0 && this.#waiting[index - 1]!.priority > priority)
        index--;
      this.#waiting.splice(index, 0, entry);
      this.#grant();
    });
  }

  /**
   * Promises a turn for every free place a waiter could take, each given by its own timer: the
   * waiter chosen when the timer fires (the best one then, not the one that came first), and
   * the window it runs in that turn of the loop after the I/O that came before. A place freed by
   * a window that took `pauseMs` is given after a pause as long: while windows queue, the
   * streamed answers together take about half of the process's time at most, and the event loop
   * is idle the rest, so a new request is read and answered at once instead of waiting for a
   * process that never sleeps to be scheduled again. (A timer, not `setImmediate`: the same code
   * runs in workerd.)
   */
  #grant(pauseMs = 0): void {
    while (
      this.#running + this.#granting < this.limit &&
      this.#granting < this.#waiting.length
    ) {
      this.#granting++;
      setTimeout(() => {
        this.#granting--;
        const next = this.#waiting.shift();
        if (next === undefined) return;
        this.#running++;
        next.start();
      }, pauseMs);
    }
  }
}

interface Waiter {
  priority: number;
  start: () => void;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error("The client disconnected");
}
