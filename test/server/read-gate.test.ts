// The gate of streamed answers' store reads: at most `limit` at once, a lower priority (fewer
// rounds of windows read so far) first, then first come first served; one window started per
// turn of the event loop; and a streamed body that is cancelled aborts its signal and produces
// nothing more.
import { describe, expect, it } from "vitest";
import {
  ReadGate,
  WINDOWS_PER_ROUND,
  windowPriority,
} from "../../src/server/responses/read-gate.js";
import { streamedHistory } from "../../src/server/responses/streamed-history.js";
import { streamedJson } from "../../src/server/responses/streamed-json.js";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";

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

  it("starts one window per turn of the event loop, each after the sockets were polled", async () => {
    // Three streams whose reads take no time: the places of a gate of two are free together and
    // their pauses end together. A check-phase callback that re-arms itself marks each turn of
    // the loop (it runs once per turn, after the poll phase); the windows between two of them
    // ran in one turn, with no socket read in between. Timers starting the windows ran two or
    // more in one turn (up to twelve beside hundreds of readers).
    const gate = new ReadGate(2);
    let windows = 0;
    let sinceTurn = 0;
    let mostInOneTurn = 0;
    let turning = true;
    const turn = () => {
      mostInOneTurn = Math.max(mostInOneTurn, sinceTurn);
      sinceTurn = 0;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    const stream = async () => {
      for (let read = 0; read < 40; read++)
        await gate.run(async () => {
          windows++;
          sinceTurn++;
        }, read);
    };
    await Promise.all([stream(), stream(), stream()]);
    turning = false;
    mostInOneTurn = Math.max(mostInOneTurn, sinceTurn);
    expect(windows).toBe(120);
    expect(mostInOneTurn).toBe(1);
  });

  it("orders windows by round, the oldest stream first within one, every first window before them", () => {
    const older = 7;
    const newer = 8;
    expect(windowPriority(older, 0)).toBe(0);
    expect(windowPriority(newer, 0)).toBe(0);
    // Within a round the oldest stream goes first ...
    expect(windowPriority(older, WINDOWS_PER_ROUND - 1)).toBeLessThan(
      windowPriority(newer, 1),
    );
    // ... and a stream in a lower round before any in a higher one, whatever their age.
    expect(windowPriority(older, WINDOWS_PER_ROUND - 1)).toBeLessThan(
      windowPriority(newer, WINDOWS_PER_ROUND),
    );
    expect(windowPriority(newer, 2 * WINDOWS_PER_ROUND)).toBeGreaterThan(
      windowPriority(older, WINDOWS_PER_ROUND),
    );
    expect(windowPriority(older, 1)).toBeGreaterThan(0);
  });

  it("gives a stream whose client reads at once its round of windows back to back, not one window per round of the others", async () => {
    // Two readers of one long history (SQLite), both reading as fast as they can, one window
    // at a time through a gate of one: the order their pieces come in. Served one window each
    // in turn, the readers alternated (every stream then waited a round of all the others for
    // each window, long enough beside hundreds of them for what it waits on to be promoted by
    // the garbage collector); served by rounds, each reads a round's windows in a row.
    const db = openSqlite(":memory:");
    const manager = SessionManager.create(db);
    const id = (await manager.create("Long")).id;
    const session = manager.getSession(id);
    for (let index = 0; index < 240; index++)
      await session.appendMessage({
        id: `m${index}`,
        role: index % 2 ? "assistant" : "user",
        parts: [{ type: "text", text: `${index} `.padEnd(10_000, "words ") }],
      });
    const leafId = (await session.getLatestLeaf())!.id;
    const gate = new ReadGate(1);
    const order: string[] = [];
    const texts: string[] = [];
    const read = async (name: string) => {
      const answer = await streamedHistory(session, leafId, gate);
      const reader = answer.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        order.push(name);
        text += decoder.decode(value, { stream: true });
      }
      texts.push(text);
    };
    await Promise.all([read("a"), read("b")]);
    db.close();
    for (const text of texts)
      expect(
        (JSON.parse(text) as { messages: unknown[] }).messages,
      ).toHaveLength(240);
    const runs = order.join("").match(/a+|b+/g)!;
    expect(order.length).toBeGreaterThan(4 * WINDOWS_PER_ROUND);
    expect(Math.max(...runs.map((run) => run.length))).toBeGreaterThanOrEqual(
      WINDOWS_PER_ROUND,
    );
    expect(runs.length).toBeLessThanOrEqual(
      Math.ceil(order.length / WINDOWS_PER_ROUND) + 4,
    );
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
