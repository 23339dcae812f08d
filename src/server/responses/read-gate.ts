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
 * for seconds. Started one per turn of the loop, after its poll of the sockets, a window is
 * all a request that arrived meanwhile waits behind before it is read.
 *
 * A waiting window with a lower `priority` goes first, then first come first served: the first
 * window of an answer (priority 0) goes ahead of the later windows of answers under way, and a
 * stream passes `windowPriority` of the windows it has read, so a short answer is not queued
 * behind every window of the long ones, which share what is left by rounds of windows. A waiter
 * whose `signal` aborts (its client went away) leaves the queue at once and never runs.
 */
export class ReadGate {
  #running = 0;
  /** Streams begun so far: the number the next one is given (`begin`). */
  #streams = 0;
  /** Places promised to waiters and not taken yet (their timer pending, or ready). */
  #granting = 0;
  /** Places whose pause is over, each to start a window on a turn of its own (`#startOne`). */
  #ready = 0;
  /** Whether `#startOne` has a start scheduled. */
  #starting = false;
  readonly #waiting: Waiter[] = [];

  constructor(private readonly limit: number) {}

  /**
   * A number for a new stream, for `windowPriority`: each stream's is larger than those of the
   * streams begun before it.
   */
  begin(): number {
    this.#streams = (this.#streams + 1) % STREAM_NUMBERS;
    return this.#streams;
  }

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
   * Promises a turn for every free place a waiter could take, each place given back by its own
   * timer, and the window then started by `#startOne`, one per turn of the loop. A place freed by
   * a window that took `pauseMs` is given after a pause as long: while windows queue, the
   * streamed answers together take about half of the process's time at most, and the event loop
   * is idle the rest, so a new request is read and answered at once instead of waiting for a
   * process that never sleeps to be scheduled again.
   */
  #grant(pauseMs = 0): void {
    while (
      this.#running + this.#granting < this.limit &&
      this.#granting < this.#waiting.length
    ) {
      this.#granting++;
      setTimeout(() => {
        this.#ready++;
        this.#startOne();
      }, pauseMs);
    }
  }

  /**
   * Starts one window for a place whose pause is over, after the I/O of this turn of the loop
   * (`afterIo`), and the next on a later turn. The places' timers often fire together (their
   * pauses end in the same millisecond, or the loop comes back late from a long turn), and
   * started from them, two windows ran in most turns of the loop and up to nine in one
   * (counted in `bench/server-window-turns.mjs`), up to 0.54 MB read, serialized and written
   * with no request read in between. One at a time, each after a poll of the sockets, a new
   * request waits for one window at most. The waiter is chosen now, the best one then, not when
   * its place was freed.
   */
  #startOne(): void {
    if (this.#starting || this.#ready === 0) return;
    this.#starting = true;
    afterIo(() => {
      this.#starting = false;
      this.#ready--;
      this.#granting--;
      const next = this.#waiting.shift();
      if (next !== undefined) {
        this.#running++;
        next.start();
      }
      this.#startOne();
    });
  }
}

/**
 * Runs `work` after the I/O that is ready now: Node's `setImmediate` runs in the check phase,
 * after the poll phase that reads the sockets (a timer of 0 ms runs before it, in the timers
 * phase, and many of them due together run back to back). workerd has no `setImmediate`;
 * there a timer.
 */
const afterIo: (work: () => void) => void =
  typeof setImmediate === "function"
    ? (work) => void setImmediate(work)
    : (work) => void setTimeout(work, 0);

/**
 * Stream numbers wrap here, so the priorities of two rounds never overlap (`windowPriority`);
 * a stream begun after the wrap goes before older ones of its round, once in 4 billion.
 */
const STREAM_NUMBERS = 2 ** 32;

/**
 * Windows a stream reads back to back, its round, before a stream that has read fewer rounds
 * goes first (`windowPriority`).
 */
export const WINDOWS_PER_ROUND = 16;

/**
 * The `priority` of window `read` (0 for the first) of the stream `stream` (`gate.begin()`).
 * Every first window goes first (FIFO among them); then the stream in the lowest round
 * (`WINDOWS_PER_ROUND` windows each), and within a round the oldest stream. So a stream whose
 * client reads at once is given its round's windows one after another, not one window per
 * round of every other stream: what a stream keeps while it waits for its next turn (the
 * promises of its pending read, the body's pull, the gate's waiter) waits a whole round of the
 * others once per round, not once per window. Waiting a round of hundreds of streams is long
 * enough for the garbage collector to promote all of it, and the old generation then fills and
 * is collected, the longest pauses. A short answer is not queued behind long ones under way:
 * its round is the lowest. (Newest first within a round was measured too: on PostgreSQL the
 * scavenges then promoted two to four times as much as with one window per round, and the
 * burst of first windows was shed more, docs/benchmarks.md.)
 */
export function windowPriority(stream: number, read: number): number {
  if (read === 0) return 0;
  const round = Math.floor(read / WINDOWS_PER_ROUND);
  return 1 + round * STREAM_NUMBERS + stream;
}

interface Waiter {
  priority: number;
  start: () => void;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error("The client disconnected");
}
