// How the load limiter admits requests under a burst (reliability/load-limits.ts), on a real
// Hono app: requests start only within a budget of one turn of the event loop (the rest start on
// later turns, after the I/O that came meanwhile), an overloaded queue serves the newest request
// first (but a request that has waited queueTargetMs before any newer one) and refuses its
// oldest when full, refused requests are told to come back in different seconds, and a waiting
// request whose client went away never runs. Orders and outcomes only: no assertion on a
// duration (the clock the limiter reads is set by the tests that need time to pass).
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ServerEnv } from "../../src/server/context.js";
import {
  LoadLimiter,
  type LoadLimits,
} from "../../src/server/reliability/load-limits.js";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** An app behind a limiter whose `/hold/:name` waits for `release(name)`; `/run/:name` answers at once. */
function limitedApp(limits: Partial<LoadLimits>) {
  const limiter = new LoadLimiter({
    maxInFlight: 1,
    maxQueued: 10,
    queueTargetMs: 60_000,
    queueTimeoutMs: 60_000,
    requestTimeoutMs: 0,
    stallMs: 0,
    log: () => undefined,
    ...limits,
  });
  const ran: string[] = [];
  const holds = new Map<string, ReturnType<typeof deferred>>();
  const app = new Hono<ServerEnv>();
  app.use("*", limiter.middleware);
  app.get("/hold/:name", async (c) => {
    const name = c.req.param("name");
    ran.push(name);
    const hold = deferred();
    holds.set(name, hold);
    await hold.promise;
    return c.text(name);
  });
  app.get("/run/:name", (c) => {
    ran.push(c.req.param("name"));
    return c.text(c.req.param("name"));
  });
  const request = (path: string, signal?: AbortSignal) =>
    app.request(`http://localhost${path}`, signal ? { signal } : {});
  return { limiter, ran, holds, request };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe("admission under a burst", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("starts no more requests in one turn of the event loop than its budget allows: the rest start on later turns", async () => {
    const { ran, request } = limitedApp({
      maxInFlight: 10,
      turnBudgetMs: 0,
    });
    // A timer set before the burst fires on the next turn of the loop: what ran before it ran
    // in this turn. Synchronous handlers (a SQLite store) all ran in this turn before.
    let ranBeforeTheTimer = -1;
    setTimeout(() => (ranBeforeTheTimer = ran.length), 0);
    const answers = await Promise.all(
      ["a", "b", "c", "d", "e"].map((name) => request(`/run/${name}`)),
    );
    expect(answers.map((answer) => answer.status)).toEqual([
      200, 200, 200, 200, 200,
    ]);
    expect(ran).toEqual(["a", "b", "c", "d", "e"]);
    expect(ranBeforeTheTimer).toBe(1);
  });

  it("serves the newest waiting request first once the queue is overloaded, and first come first served before", async () => {
    const overloaded = limitedApp({ newestFirstAfterMs: 0 });
    const holding = overloaded.request("/hold/first");
    await until(() => overloaded.holds.has("first"));
    const waiting = ["old", "middle", "new"].map((name) =>
      overloaded.request(`/run/${name}`),
    );
    await until(() => overloaded.limiter.waiting === 3);
    overloaded.holds.get("first")!.resolve();
    await Promise.all([holding, ...waiting]);
    expect(overloaded.ran).toEqual(["first", "new", "middle", "old"]);

    const normal = limitedApp({ newestFirstAfterMs: 60_000 });
    const held = normal.request("/hold/first");
    await until(() => normal.holds.has("first"));
    const queued = ["old", "middle", "new"].map((name) =>
      normal.request(`/run/${name}`),
    );
    await until(() => normal.limiter.waiting === 3);
    normal.holds.get("first")!.resolve();
    await Promise.all([held, ...queued]);
    expect(normal.ran).toEqual(["first", "old", "middle", "new"]);
  });

  it("refuses the oldest waiting request, not the new one, when an overloaded queue is full", async () => {
    const { ran, holds, limiter, request } = limitedApp({
      maxQueued: 2,
      newestFirstAfterMs: 0,
    });
    const holding = request("/hold/first");
    await until(() => holds.has("first"));
    const oldest = request("/run/oldest");
    const next = request("/run/next");
    await until(() => limiter.waiting === 2);
    const newest = request("/run/newest");
    const refused = await oldest;
    expect(refused.status).toBe(503);
    expect(
      ((await refused.json()) as { error: { code: string } }).error.code,
    ).toBe("OVERLOADED");
    expect(refused.headers.get("Retry-After")).not.toBeNull();
    holds.get("first")!.resolve();
    expect((await newest).status).toBe(200);
    expect((await next).status).toBe(200);
    await holding;
    expect(ran).toEqual(["first", "newest", "next"]);
  });

  it("serves a request that has waited queueTargetMs before newer ones, even when the newest goes first", async () => {
    // Only Date is faked: the limiter's timers run as ever, its clock is the test's.
    vi.useFakeTimers({ toFake: ["Date"] });
    const { ran, holds, limiter, request } = limitedApp({
      newestFirstAfterMs: 0,
      queueTargetMs: 1_000,
    });
    const holding = request("/hold/first");
    await until(() => holds.has("first"));
    const old = request("/run/old");
    await until(() => limiter.waiting === 1);
    // The old request has now waited past the target: it is due.
    vi.setSystemTime(Date.now() + 2_000);
    const newer = ["middle", "new"].map((name) => request(`/run/${name}`));
    await until(() => limiter.waiting === 3);
    holds.get("first")!.resolve();
    await Promise.all([holding, old, ...newer]);
    // Before the bound, newest first left the old one waiting until its queue deadline.
    expect(ran).toEqual(["first", "old", "new", "middle"]);
  });

  it("once a request is due, refuses a new one at once when the whole queue ahead would take longer than queueTargetMs; with none due, admits it", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { holds, limiter, request } = limitedApp({
      newestFirstAfterMs: 0,
      queueTargetMs: 1_000,
    });
    // One turn held for 600 ms by the limiter's clock: the service time observed (the turns
    // after it take no time on the frozen clock, and bring the mean down to about 430 ms).
    const observed = request("/hold/observed");
    await until(() => holds.has("observed"));
    vi.setSystemTime(Date.now() + 600);
    holds.get("observed")!.resolve();
    await observed;

    // None due: a burst is served newest first, so a fourth request is admitted although the
    // four would take over 2 s first come first served.
    const first = request("/hold/first");
    await until(() => holds.has("first"));
    const burst = ["a", "b", "c", "d"].map((name) => request(`/run/${name}`));
    await until(() => limiter.waiting === 4);
    holds.get("first")!.resolve();
    expect((await Promise.all([first, ...burst])).map((r) => r.status)).toEqual(
      [200, 200, 200, 200, 200],
    );

    // One due: every request now waiting goes before a new one. x is due, y is not, so a new
    // request has two ahead (1.3 s at about 430 ms each) and is refused at once; counting only
    // the due (0.9 s) admitted it.
    const second = request("/hold/second");
    await until(() => holds.has("second"));
    const x = request("/run/x");
    await until(() => limiter.waiting === 1);
    vi.setSystemTime(Date.now() + 1_500);
    const y = request("/run/y");
    await until(() => limiter.waiting === 2);
    expect((await request("/run/z")).status).toBe(503);
    holds.get("second")!.resolve();
    expect((await Promise.all([second, x, y])).map((r) => r.status)).toEqual([
      200, 200, 200,
    ]);
  });

  it("spreads the Retry-After of requests refused together over the following seconds", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-12-07T12:00:00.100Z"));
    // One turn, no queue: every request beside the running one is refused at once. Nothing is
    // observed yet, so the server is taken to serve one request a second, and each second has
    // room for one return.
    const { holds, request } = limitedApp({
      maxQueued: 0,
      queueTimeoutMs: 4_000,
    });
    const holding = request("/hold/first");
    await until(() => holds.has("first"));
    const refused = [];
    for (let index = 0; index < 6; index++)
      refused.push(await request(`/run/r${index}`));
    expect(refused.map((answer) => answer.status)).toEqual(Array(6).fill(503));
    // One second each, then the cap (the queue deadline) takes the rest.
    expect(
      refused.map((answer) => Number(answer.headers.get("Retry-After"))),
    ).toEqual([1, 2, 3, 4, 4, 4]);
    holds.get("first")!.resolve();
    await holding;
  });

  /**
   * A limiter of 24 turns that has served `batches` rounds of 24 turns, each held `msEach` by
   * the test's clock (the whole round finishing together), then holds 24 turns and sends 80
   * more requests: how many answered 503 at once, and the answers once the turns come back.
   */
  async function afterRounds(rounds: { batches: number; msEach: number }[]) {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-12-07T12:00:00.000Z"));
    const { holds, limiter, request } = limitedApp({
      maxInFlight: 24,
      maxQueued: 200,
      queueTargetMs: 1_000,
      queueTimeoutMs: 5_000,
      newestFirstAfterMs: 60_000,
      turnBudgetMs: 60_000,
    });
    let round = 0;
    const holdAll = async () => {
      const names = Array.from({ length: 24 }, (_, i) => `r${round}-${i}`);
      round++;
      const answers = names.map((name) => request(`/hold/${name}`));
      await until(() => names.every((name) => holds.has(name)));
      return async () => {
        for (const name of names) holds.get(name)!.resolve();
        return (await Promise.all(answers)).map((answer) => answer.status);
      };
    };
    for (const { batches, msEach } of rounds)
      for (let batch = 0; batch < batches; batch++) {
        const release = await holdAll();
        vi.setSystemTime(Date.now() + msEach);
        expect(await release()).toEqual(Array(24).fill(200));
      }
    const release = await holdAll();
    let settled = 0;
    const arrivals = Array.from({ length: 80 }, (_, index) =>
      Promise.resolve(request(`/run/n${index}`)).then((answer) => {
        settled++;
        return answer.status;
      }),
    );
    await until(() => limiter.waiting + settled === 80);
    const refusedAtOnce = settled;
    const expectedWaitMs = limiter.expectedWaitMs();
    await release();
    const statuses = await Promise.all(arrivals);
    return { refusedAtOnce, expectedWaitMs, statuses };
  }

  it("admits what the server serves within queueTargetMs after a stall in which every running request finished late together", async () => {
    // A second of rounds of 100 ms (240 turns given back a second), then one round held 400 ms:
    // the whole process waited for a core. The mean turn jumps to about 336 ms, which put 81
    // requests at 1.1 s (81 × 336 / 24) and refused 9 of the 80; the turns given back over the
    // last second (168 in 0.9 s) put them at 0.43 s.
    const { refusedAtOnce, expectedWaitMs, statuses } = await afterRounds([
      { batches: 10, msEach: 100 },
      { batches: 1, msEach: 400 },
    ]);
    expect(refusedAtOnce).toBe(0);
    expect(statuses).toEqual(Array(80).fill(200));
    expect(expectedWaitMs).toBeLessThan(1_000);
  });

  it("still refuses what a server that stays slow cannot serve within queueTargetMs", async () => {
    // Rounds of 500 ms for 5 s: about 50 turns a second by the mean and by the count alike, so
    // of 80 new requests only about 50 can expect a turn within the second.
    const { refusedAtOnce, statuses } = await afterRounds([
      { batches: 10, msEach: 500 },
    ]);
    expect(refusedAtOnce).toBeGreaterThan(20);
    expect(statuses.filter((status) => status === 200).length).toBeLessThan(60);
  });

  it("never runs a waiting request whose client went away", async () => {
    const { ran, holds, limiter, request } = limitedApp({});
    const holding = request("/hold/first");
    await until(() => holds.has("first"));
    const client = new AbortController();
    const gone = request("/run/gone", client.signal);
    await until(() => limiter.waiting === 1);
    client.abort();
    await until(() => limiter.waiting === 0);
    holds.get("first")!.resolve();
    await holding;
    expect((await request("/run/after")).status).toBe(200);
    expect((await gone).status).toBe(499);
    expect(ran).toEqual(["first", "after"]);
  });
});
