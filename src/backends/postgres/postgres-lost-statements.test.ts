import { describe, expect, it } from "vitest";
import { isArborError } from "../../session/errors/index.js";
import { LostStatementGuard } from "./postgres-lost-statements.js";

/** A statement the test settles by hand (or never): stands in for a driver's query. */
function statement<T = string>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

const connectionReset = () =>
  Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });

/** How a guarded statement ended: its value, or its error's code. */
function outcome(promise: Promise<unknown>) {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({
      code: isArborError(error)
        ? error.code
        : (error as { code?: string }).code,
    }),
  );
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("LostStatementGuard (statements scripted by the test)", () => {
  it("rejects a statement still pending a grace after a sibling's connection fault", async () => {
    const guard = new LostStatementGuard(30);
    const lost = statement();
    const failing = statement();
    const lostOutcome = outcome(guard.run(() => lost.promise));
    const failingOutcome = outcome(guard.run(() => failing.promise));
    failing.reject(connectionReset());
    expect(await failingOutcome).toEqual({ code: "ECONNRESET" });
    expect(await lostOutcome).toEqual({ code: "STORAGE_UNAVAILABLE" });
  });

  it("gives a statement started just after a fault the same deadline", async () => {
    const guard = new LostStatementGuard(30);
    const failing = statement();
    const failed = outcome(guard.run(() => failing.promise));
    failing.reject(connectionReset());
    await failed;
    // Handed to the failed connection before the pool moved it out: never settles.
    const lost = statement();
    expect(await outcome(guard.run(() => lost.promise))).toEqual({
      code: "STORAGE_UNAVAILABLE",
    });
  });

  it("never cuts a slow statement of a healthy client, nor one that settles within the grace", async () => {
    const guard = new LostStatementGuard(30);
    const slow = statement();
    const slowOutcome = outcome(guard.run(() => slow.promise));
    await wait(60);
    slow.resolve("rows");
    expect(await slowOutcome).toEqual({ value: "rows" });

    const survivor = statement();
    const survivorOutcome = outcome(guard.run(() => survivor.promise));
    const failing = statement();
    const failed = outcome(guard.run(() => failing.promise));
    failing.reject(connectionReset());
    await failed;
    survivor.resolve("late rows");
    expect(await survivorOutcome).toEqual({ value: "late rows" });
  });

  it("arms nothing for errors that are not a lost connection", async () => {
    const guard = new LostStatementGuard(30);
    const pending = statement();
    const pendingOutcome = outcome(guard.run(() => pending.promise));
    const failing = statement();
    const failed = outcome(guard.run(() => failing.promise));
    failing.reject(
      Object.assign(new Error("duplicate key"), { code: "23505" }),
    );
    expect(await failed).toEqual({ code: "23505" });
    await wait(60);
    pending.resolve("rows");
    expect(await pendingOutcome).toEqual({ value: "rows" });
  });

  it("passes on a statement that throws before it starts, and keeps nothing of it", async () => {
    const guard = new LostStatementGuard(30);
    const bad = guard.run<string>(() => {
      throw new TypeError("bad arguments");
    });
    await expect(bad).rejects.toThrow("bad arguments");
    expect(guard.pending).toBe(0);
    const settled = statement();
    const done = guard.run(() => settled.promise);
    expect(guard.pending).toBe(1);
    settled.resolve("rows");
    expect(await done).toBe("rows");
    expect(guard.pending).toBe(0);
  });

  it("forgets the fault once its window has passed", async () => {
    let now = 0;
    const guard = new LostStatementGuard(30, () => now);
    const failing = statement();
    const failed = outcome(guard.run(() => failing.promise));
    failing.reject(connectionReset());
    await failed;
    now = 5_000;
    const later = statement();
    const laterOutcome = outcome(guard.run(() => later.promise));
    await wait(60);
    later.resolve("rows");
    expect(await laterOutcome).toEqual({ value: "rows" });
  });
});
