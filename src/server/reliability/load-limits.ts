import type { MiddlewareHandler } from "hono";
import type { ServerEnv } from "../context.js";
import { errorResponse } from "../errors.js";

/** How many requests run at once, how many may wait for a turn and for how long, and how long one may run. */
export interface LoadLimits {
  maxInFlight: number;
  maxQueued: number;
  /**
   * The longest expected wait a request may join the queue with (the requests ahead of it, served
   * `maxInFlight` at a time, by the observed time a turn is held); one that would wait longer is
   * refused at once. The latency bound of the shed policy: the queue holds what the server serves
   * in this time, however many clients that is, and no more. A fixed count shed clients a fast
   * server would serve at once, and admitted more than a slow one (turns held long) serves in time.
   */
  queueTargetMs: number;
  queueTimeoutMs: number;
  requestTimeoutMs: number;
  /**
   * `/ready` answers 503 once every turn has been taken and none has been given back for this
   * long (a wedged server, not a busy one: a busy server gives turns back all the time).
   */
  stallMs: number;
  /** One line when the turns stall and one when they move again. */
  log: (line: string) => void;
  /**
   * Once the oldest waiting request has waited this long, the queue is overloaded and the newest
   * request goes first (and a full queue refuses its oldest request, not the new one), except
   * that a request that has waited `queueTargetMs` goes before any newer one. Default 100 ms.
   */
  newestFirstAfterMs?: number;
  /**
   * Milliseconds of one turn of the event loop that may go to starting requests; the rest wait
   * for a later turn. Default 10 ms.
   */
  turnBudgetMs?: number;
}

/** Defaults of the optional limits. */
const NEWEST_FIRST_AFTER_MS = 100;
const TURN_BUDGET_MS = 10;

/**
 * Bounds the work in progress instead of letting it pile up: at most `maxInFlight` requests run
 * (they hold storage connections and answers in memory); more wait for a turn, first come first
 * served, while their expected wait is within `queueTargetMs` and fewer than `maxQueued` wait (a
 * bound on memory, not the shed policy); any other answers 503 `OVERLOADED` at once, with
 * a `Retry-After` of the time the queue takes to drain; one that waits longer than
 * `queueTimeoutMs` after all answers the same.
 *
 * Two rules keep a burst (hundreds of requests at once, each readers of a large answer, say)
 * from holding new requests behind it. Requests start only within `turnBudgetMs` of one turn of
 * the event loop; the rest wait, and are started by timers on later turns, after the I/O that
 * came meanwhile: with a synchronous store (SQLite) a whole burst otherwise ran in one turn,
 * and a request that arrived meanwhile was not even read for seconds. And once the oldest waiter
 * has waited `newestFirstAfterMs`, the queue is overloaded and serves the newest request first
 * (adaptive LIFO): first come first served would make every later request wait for the whole
 * burst, while a request that has waited long is the one whose client has most likely given up;
 * a full queue then refuses its oldest request (503 `OVERLOADED`, Retry-After) to take the new
 * one. Newest first is bounded, though: a request that has waited `queueTargetMs` is due and goes
 * before every newer one (oldest first among the due). Without that bound, a queue that stays
 * overloaded (128 clients that each send their next request as soon as they are answered, on a
 * server running 24) served the same few clients again and again while the oldest waited out
 * `queueTimeoutMs` and were refused: 5% of requests answered 503 after 5 s. Below the threshold
 * (normal load) the order stays first come first served. The body is
 * read before the turn is asked for (`readBodies`), so a turn is only ever held by work the
 * server does itself; and a route whose
 * answer goes on without it gives it back early (`releaseTurn`): a streamed answer holds no turn
 * while it waits for its windows' turns or for its client to read.
 *
 * Every turn is given back, on every path: when the route's work ends (answer or error); when a
 * waiting client goes away (it leaves the queue); and when the work never ends. A request running
 * past `requestTimeoutMs` answers 503 `REQUEST_TIMEOUT` but keeps its turn while its work goes
 * on (it still holds a storage connection and memory, and may still commit: the client retries
 * the idempotent way); if the work is still not done after another `requestTimeoutMs`, the turn
 * is given back anyway, so a handler that hangs for ever costs its memory, never the server's
 * capacity.
 */
export class LoadLimiter {
  #running = 0;
  /** Oldest first. */
  readonly #waiting: Waiter[] = [];
  /** Turns promised by a timer that has not fired yet. */
  #granting = 0;
  /** When the first request of this turn of the event loop started (`performance.now()`). */
  #turnStartedAt: number | undefined;
  /** When a turn was last given back, or the last turn was taken (whichever is later). */
  #lastProgress = Date.now();
  #stallLogged = false;
  /** How long a turn is held, on average (an exponentially weighted mean, ms); 0 before any. */
  #serviceMs = 0;
  /**
   * Refused requests told to come back in each of the next seconds (a ring indexed by the
   * second since the epoch, with the second each count belongs to): `Retry-After` spreads them.
   */
  readonly #returns: number[] = [];
  readonly #returnSeconds: number[] = [];
  /**
   * Turns given back in each of the last ten tenths of a second (a ring indexed by the tenth of a
   * second since the epoch, with the tenth each count belongs to): the rate the server actually
   * serves at, beside the mean time a turn is held.
   */
  readonly #releases: number[] = [];
  readonly #releaseTenths: number[] = [];

  constructor(private readonly limits: LoadLimits) {}

  /** The middleware in front of `/v1` and `/mcp`. */
  readonly middleware: MiddlewareHandler<ServerEnv> = async (c, next) => {
    const turn = await this.#turn(c.req.raw.signal);
    if (turn === "aborted") return new Response(null, { status: 499 });
    if (turn === "refused") {
      this.stalled();
      return errorResponse(
        c,
        "OVERLOADED",
        `The server is running ${this.#running} requests and ${this.#waiting.length} more wait: retry after the Retry-After delay`,
        this.#bookReturn(),
      );
    }
    let given = false;
    let linger: ReturnType<typeof setTimeout> | undefined;
    const took = Date.now();
    const giveBack = () => {
      clearTimeout(linger);
      if (given) return;
      given = true;
      // A turn held past the request timeout is a stuck handler, not the service time.
      this.#observe(
        Math.min(Date.now() - took, this.limits.requestTimeoutMs || Infinity),
      );
      this.#release();
    };
    // Slots bound work, not waiting: a route whose answer waits for something else (a
    // streamed answer waiting for its first window's turn) gives its turn back early.
    c.set("releaseTurn", giveBack);
    const work = next().finally(giveBack);
    const timeoutMs = this.limits.requestTimeoutMs;
    if (!(timeoutMs > 0)) return work;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const outcome = await Promise.race([
      work.then(() => "done" as const),
      timedOut,
    ]);
    clearTimeout(timer);
    if (outcome === "done") return;
    // The handler's own answer, when it comes, goes nowhere; its failure is logged by onError.
    work.catch(() => undefined);
    if (!given) linger = unref(setTimeout(giveBack, timeoutMs));
    return errorResponse(
      c,
      "REQUEST_TIMEOUT",
      `The request did not finish within ${timeoutMs} ms; it may still complete, so retry it the idempotent way (docs/server.md#retrying-writes)`,
    );
  };

  /** Requests running now. */
  get running(): number {
    return this.#running;
  }

  /** Requests waiting for a turn now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * The expected wait, in ms, of a request that would join the queue now: the requests ahead of
   * it, served `maxInFlight` at a time, each holding its turn for the observed mean; 0 before
   * any turn was given back (nothing observed yet). Ahead of it are all that wait, except while
   * the queue is overloaded and none is due yet: then the newest goes first, and a burst is
   * served within the bound. Once one is due, newest first has not kept up, the due go first,
   * and every request now waiting becomes due before the new one: all are ahead of it (counting
   * only the due admitted 128 clients that each waited 4 s on a server serving 119 a second).
   *
   * The rate is the larger of two estimates: `maxInFlight` turns per mean turn, and the turns
   * actually given back over the last second. The mean alone misread a stall of the whole
   * process (waiting a few hundred ms for a core on shared, oversubscribed cores): every running
   * request then finishes late together, the mean jumps two to three times within one tenth of a
   * second, and for the next tenths every new request was refused although the server went on
   * serving as many a second as before (3-5% of requests answered 503 at 128 clients where a
   * held server answered 0.3-0.6%). Turns counted over a second move little in such a pause. The
   * count never overstates what the server can serve (it is what it served; less when it was not
   * busy, and then the mean decides), and the mean still decides when the count is low.
   */
  expectedWaitMs(): number {
    const { maxInFlight } = this.limits;
    if (!(maxInFlight > 0)) return 0;
    const ahead =
      this.#newestFirst() && this.#due() === 0 ? 0 : this.#waiting.length;
    const byMean = ((ahead + 1) * this.#serviceMs) / maxInFlight;
    const served = this.#servedPerMs();
    return served > 0 ? Math.min(byMean, (ahead + 1) / served) : byMean;
  }

  /**
   * When a refused client should come back, in whole seconds (at least 1, at most
   * `queueTimeoutMs`): the time the queue now takes to drain, from the observed service time.
   * A constant one second sent every refused client back at once, into a queue still full.
   */
  retryAfterSeconds(): number {
    const drain = this.expectedWaitMs();
    return Math.min(this.#retryCap(), Math.max(1, Math.ceil(drain / 1000)));
  }

  /**
   * Milliseconds every turn has been held with none given back, once that is at least
   * `stallMs`; otherwise 0. Logs one line when a stall is first seen.
   */
  stalled(): number {
    const { maxInFlight, stallMs } = this.limits;
    if (!(maxInFlight > 0) || !(stallMs > 0) || this.#running < maxInFlight)
      return 0;
    const held = Date.now() - this.#lastProgress;
    if (held < stallMs) return 0;
    if (!this.#stallLogged) {
      this.#stallLogged = true;
      this.limits.log(
        `[arbor] [server] all ${maxInFlight} request turns held for ${(held / 1000).toFixed(1)} s with none given back: /ready answers 503 until one is`,
      );
    }
    return held;
  }

  // --- Internal helpers ---

  /** A turn, or why none came: the queue was full or too slow, or the client went away. */
  #turn(
    signal: AbortSignal,
  ): Promise<"turn" | "refused" | "aborted"> | "turn" | "refused" | "aborted" {
    const { maxInFlight, maxQueued, queueTargetMs, queueTimeoutMs } =
      this.limits;
    if (!(maxInFlight > 0)) return "turn";
    if (
      this.#running < maxInFlight &&
      this.#waiting.length === 0 &&
      this.#withinTurnBudget()
    ) {
      this.#take();
      return "turn";
    }
    const newestFirst = this.#newestFirst();
    if (this.#waiting.length >= maxQueued) {
      if (!newestFirst || maxQueued < 1) return "refused";
      this.#waiting[0]!.refuse();
    }
    // Shed at once a request that could not get a turn within the latency target (or before its
    // queue deadline): waiting only to be refused, or served late, wastes the client's time and
    // fills the queue. Clients that honour Retry-After come back when the queue has drained.
    // (Served newest first with none due, a new request waits for none of them.)
    if (this.expectedWaitMs() > Math.min(queueTargetMs, queueTimeoutMs))
      return "refused";
    if (signal.aborted) return "aborted";
    return new Promise((resolve) => {
      const leave = (outcome: "refused" | "aborted") => {
        const index = this.#waiting.indexOf(waiter);
        if (index >= 0) this.#waiting.splice(index, 1);
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        resolve(outcome);
      };
      const onAbort = () => leave("aborted");
      const waiter: Waiter = {
        since: Date.now(),
        wake: () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          resolve("turn");
        },
        refuse: () => leave("refused"),
      };
      const timer = setTimeout(() => leave("refused"), queueTimeoutMs);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
      this.#grant();
    });
  }

  #take(): void {
    this.#running++;
    if (this.#running === this.limits.maxInFlight)
      this.#lastProgress = Date.now();
  }

  /** Whether the oldest waiter has waited long enough for the newest to go first. */
  #newestFirst(): boolean {
    const oldest = this.#waiting[0];
    return (
      oldest !== undefined &&
      Date.now() - oldest.since >=
        (this.limits.newestFirstAfterMs ?? NEWEST_FIRST_AFTER_MS)
    );
  }

  /**
   * How many waiters have waited `queueTargetMs` or longer. The queue is in arrival order (new
   * waiters join at the end; any may leave), so they are a prefix: found by bisection.
   */
  #due(): number {
    const since = Date.now() - this.limits.queueTargetMs;
    let low = 0;
    let high = this.#waiting.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#waiting[middle]!.since <= since) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The longest `Retry-After`, in seconds: the queue deadline's. */
  #retryCap(): number {
    return Math.max(1, Math.ceil(this.limits.queueTimeoutMs / 1000));
  }

  /**
   * The `Retry-After` of a refused request, booked: the first second, from the time the queue
   * takes to drain (`retryAfterSeconds`), in which fewer than half the requests the server
   * serves in a second have been told to come back already. One value for every request refused
   * in a burst sent them all back in the same second, to find the queue as full as they left
   * it; spread, each second's returns fit beside the clients already being served. A ring of
   * counters, one per second up to the cap: no memory per refused request.
   */
  #bookReturn(): number {
    const cap = this.#retryCap();
    const first = this.retryAfterSeconds();
    const { maxInFlight } = this.limits;
    const perSecond = Math.max(
      this.#serviceMs > 0 && maxInFlight > 0
        ? (maxInFlight * 1000) / this.#serviceMs
        : maxInFlight,
      this.#servedPerMs() * 1000,
    );
    const room = Math.max(1, Math.floor(perSecond / 2));
    const now = Math.floor(Date.now() / 1000);
    let chosen = cap;
    for (let after = first; after <= cap; after++) {
      const slot = (now + after) % (cap + 1);
      if (this.#returnSeconds[slot] !== now + after) {
        this.#returnSeconds[slot] = now + after;
        this.#returns[slot] = 0;
      }
      if (this.#returns[slot]! < room) {
        chosen = after;
        break;
      }
    }
    const slot = (now + chosen) % (cap + 1);
    if (this.#returnSeconds[slot] !== now + chosen) {
      this.#returnSeconds[slot] = now + chosen;
      this.#returns[slot] = 0;
    }
    this.#returns[slot]!++;
    return chosen;
  }

  /**
   * Whether a request may still start in this turn of the event loop: the first one of a turn
   * notes the time, and a timer (due on the next turn) clears it.
   */
  #withinTurnBudget(): boolean {
    const now = performance.now();
    if (this.#turnStartedAt === undefined) {
      this.#turnStartedAt = now;
      setTimeout(() => (this.#turnStartedAt = undefined), 0);
      return true;
    }
    return (
      now - this.#turnStartedAt < (this.limits.turnBudgetMs ?? TURN_BUDGET_MS)
    );
  }

  /**
   * Promises a turn for every free place a waiter could take, each given by its own timer on a
   * later turn of the event loop (the requests then start one per timer, each checked against
   * the turn's budget, with the microtasks of the one before run in between). The waiter is
   * chosen when the timer fires: the oldest, or the newest once the queue is overloaded.
   */
  #grant(): void {
    const { maxInFlight } = this.limits;
    while (
      this.#running + this.#granting < maxInFlight &&
      this.#granting < this.#waiting.length
    ) {
      this.#granting++;
      setTimeout(() => {
        this.#granting--;
        if (this.#waiting.length === 0 || this.#running >= maxInFlight) return;
        if (!this.#withinTurnBudget()) {
          this.#grant();
          return;
        }
        // The oldest when it is due or the queue is not overloaded; else the newest.
        const next =
          this.#newestFirst() && this.#due() === 0
            ? this.#waiting.pop()!
            : this.#waiting.shift()!;
        this.#take();
        next.wake();
      }, 0);
    }
  }

  /** Folds one turn's duration into the mean (weight 1/16: a few slow requests move it little). */
  #observe(ms: number): void {
    this.#serviceMs =
      this.#serviceMs === 0
        ? ms
        : this.#serviceMs + (ms - this.#serviceMs) / 16;
  }

  /** Counts one turn given back in its tenth of a second. */
  #countRelease(now: number): void {
    const tenth = Math.floor(now / 100);
    const slot = tenth % 10;
    if (this.#releaseTenths[slot] !== tenth) {
      this.#releaseTenths[slot] = tenth;
      this.#releases[slot] = 0;
    }
    this.#releases[slot]!++;
  }

  /**
   * Turns given back per millisecond over the last second (this tenth and the nine before it);
   * 0 when none was. A limiter younger than a second counts less than it served: it errs on the
   * side of the mean.
   */
  #servedPerMs(): number {
    const now = Date.now();
    const tenth = Math.floor(now / 100);
    let count = 0;
    for (let slot = 0; slot < 10; slot++) {
      const counted = this.#releaseTenths[slot];
      if (counted !== undefined && counted > tenth - 10 && counted <= tenth)
        count += this.#releases[slot]!;
    }
    return count / (900 + (now - tenth * 100));
  }

  #release(): void {
    if (!(this.limits.maxInFlight > 0)) return;
    this.#lastProgress = Date.now();
    this.#countRelease(this.#lastProgress);
    if (this.#stallLogged) {
      this.#stallLogged = false;
      this.limits.log(
        "[arbor] [server] a request turn was given back: /ready answers 200 again",
      );
    }
    // A waiter starts on a later turn of the event loop, not in this one.
    this.#running--;
    this.#grant();
  }
}

interface Waiter {
  /** When it joined the queue (`Date.now()`). */
  since: number;
  wake: () => void;
  refuse: () => void;
}

/** A timer that does not keep a Node process alive (Workers have no `unref`). */
function unref<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
