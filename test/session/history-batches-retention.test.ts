// A batch handed out by `session.historyBatches()` is the consumer's alone: while the iteration
// waits for its next `next()`, it holds no reference to the batch it gave. A server streaming
// windows to hundreds of clients in turn asks each iteration for its next window only after the
// others had theirs; a batch kept in the suspended generator's frame stayed alive that long, so
// the garbage collector copied and promoted every window (docs/server.md#large-answers). Checked
// with a WeakRef after a full collection (gc exposed at run time), on SQLite and in memory.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** Reads the first batch and keeps only weak references to its messages. */
async function firstBatchWeakly(
  batches: AsyncIterator<Array<{ id: string }>>,
): Promise<Array<WeakRef<object>>> {
  const step = await batches.next();
  return step.done ? [] : step.value.map((message) => new WeakRef(message));
}

describe("historyBatches()", () => {
  for (const [name, open] of [
    ["SQLite", () => SessionManager.create(openSqlite(":memory:"))],
    ["memory", () => SessionManager.inMemory()],
  ] as const) {
    it(`holds no reference to a batch it handed out while it waits for the next call (${name})`, async () => {
      const manager = open();
      const id = (await manager.create("Long")).id;
      const session = manager.getSession(id);
      for (let index = 0; index < 12; index++)
        await session.appendMessage({
          id: `m${index}`,
          role: index % 2 ? "assistant" : "user",
          parts: [{ type: "text", text: `message ${index}` }],
        });
      const batches = session
        .historyBatches({ batchSize: 4 })
        [Symbol.asyncIterator]();
      const weak = await firstBatchWeakly(batches);
      expect(weak).toHaveLength(4);
      // A WeakRef's target stays alive until the end of the job that made it: collect on a
      // later turn of the event loop.
      await new Promise((resolve) => setTimeout(resolve, 0));
      collectGarbage();
      expect(weak.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
      // The iteration goes on from where it was.
      const next = await batches.next();
      expect(next.value?.map((message: { id: string }) => message.id)).toEqual([
        "m4",
        "m5",
        "m6",
        "m7",
      ]);
      await batches.return?.(undefined);
    });
  }
});
