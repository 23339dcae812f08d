// The gate of streamed answers' store reads: at most `limit` at once, a lower priority (fewer
// windows read so far) first, then first come first served; and a streamed body that is
// cancelled aborts its signal and produces nothing more.
import { describe, expect, it } from "vitest";
import { ReadGate } from "../../src/server/responses/read-gate.js";
import { streamedJson } from "../../src/server/responses/streamed-json.js";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe("ReadGate", () => {
  it("runs at most `limit` reads at once and lets a lower priority go first", async () => {
    const gate = new ReadGate(1);
    const order: string[] = [];
    let running = 0;
    let most = 0;
    const first = deferred();
    const read = (name: string, wait?: Promise<void>) => async () => {
      running++;
      most = Math.max(most, running);
      order.push(name);
      await wait;
      running--;
    };
    const all = [
      gate.run(read("long-0", first.promise), 0),
      gate.run(read("long-5"), 5),
      gate.run(read("long-3"), 3),
      gate.run(read("short-0"), 0),
      gate.run(read("long-3b"), 3),
    ];
    first.resolve();
    await Promise.all(all);
    expect(most).toBe(1);
    expect(order).toEqual(["long-0", "short-0", "long-3", "long-3b", "long-5"]);
  });

  it("gives every turn on a later turn of the event loop, so a chain of windows lets I/O in between", async () => {
    const gate = new ReadGate(2);
    // One stream whose socket always drains: each window asks for the next as soon as it is
    // written. A timer set first fires on the next turn of the loop, after at most one round
    // of turns; a gate that ran a free turn at once chained all 100 windows before it.
    let windows = 0;
    let windowsBeforeTheTimer = -1;
    setTimeout(() => (windowsBeforeTheTimer = windows), 0);
    while (windows < 100) await gate.run(async () => windows++, windows);
    expect(windowsBeforeTheTimer).toBeGreaterThanOrEqual(0);
    expect(windowsBeforeTheTimer).toBeLessThanOrEqual(2);
  });

  it("never runs a waiting read whose signal aborted (its client went away)", async () => {
    const gate = new ReadGate(1);
    const first = deferred();
    let ran = 0;
    const running = gate.run(async () => {
      ran++;
      await first.promise;
    });
    while (ran === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    const client = new AbortController();
    const waiting = gate.run(async () => ran++, 0, client.signal);
    expect(gate.waiting).toBe(1);
    client.abort(new Error("The client disconnected"));
    await expect(waiting).rejects.toThrow("The client disconnected");
    expect(gate.waiting).toBe(0);
    first.resolve();
    await running;
    await expect(gate.run(async () => "next")).resolves.toBe("next");
    expect(ran).toBe(1);
  });

  it("passes the turn on after a failed read", async () => {
    const gate = new ReadGate(1);
    const failed = gate.run(async () => {
      throw new Error("boom");
    });
    const next = gate.run(async () => "ran");
    await expect(failed).rejects.toThrow("boom");
    await expect(next).resolves.toBe("ran");
  });
});

describe("streamedJson", () => {
  it("produces a piece only when one is read, and nothing after the body is cancelled", async () => {
    let produced = 0;
    const abort = new AbortController();
    let ended = 0;
    const encoder = new TextEncoder();
    const response = streamedJson(
      encoder.encode("["),
      async () => {
        produced++;
        return produced > 100 ? undefined : encoder.encode(`${produced},`);
      },
      { abort, onEnd: () => ended++ },
    );
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe("[");
    expect(decoder.decode((await reader.read()).value)).toBe("1,");
    expect(produced).toBe(1);
    await reader.cancel();
    expect(abort.signal.aborted).toBe(true);
    expect(ended).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(produced).toBe(1);
  });
});
