// What two objects over one store must share in this process, whichever objects they are: two
// `Backend` objects (a backend and a copy of it, as a factory called per request makes) and the
// Sessions and managers built on them. Appends of one session from two Session objects form one
// chain, and an erase through one object is seen by a compaction running in another (the erase
// epoch), so no summary of an erased message is stored afterwards. Both hold because the append
// lock and the erase epoch belong to the store (state/store-runtime.ts), not to any one object.
import { expect, it, vi } from "vitest";
import type { Backend } from "../../src/session/contracts/backend.js";
import type { SessionProvider } from "../../src/session/contracts/provider.js";
import type { SessionMessage } from "../../src/session/contracts/types.js";
import { SessionManager } from "../../src/session/manager/session-manager.js";
import { Session } from "../../src/session/facade/session.js";

/** A store under test: `backend()` builds a backend over it (the same store every call). */
export interface SharedStore {
  backend(): Backend;
}

export function storeRuntimeSpec(open: () => Promise<SharedStore>): void {
  it("two Session objects over two backend objects of one store append one chain", async () => {
    const store = await open();
    const first = store.backend();
    // A second object over the same store, as a backend built again per request would be.
    const second: Backend = { ...first };
    expect(second).not.toBe(first);
    const manager = SessionManager.create(second);
    const { id } = await manager.create("chain");
    const a = Session.create(first.session(id));
    const b = Session.create(second.session(id));
    const appends: Promise<unknown>[] = [];
    for (let index = 0; index < 10; index++) {
      appends.push(a.appendMessage(text(`a${index}`)));
      appends.push(b.appendMessage(text(`b${index}`)));
    }
    await Promise.all(appends);
    const history = await a.getHistory();
    // One chain: every message is on the latest leaf's path, none forked off.
    expect(history).toHaveLength(20);
    expect(new Set(history.map((m) => m.id)).size).toBe(20);
    expect(await b.getHistory()).toEqual(history);
  });

  it("an append through one backend object waits for another object's append of the session to finish", async () => {
    const store = await open();
    const first = store.backend();
    const second: Backend = { ...first };
    const { id } = await SessionManager.create(first).create("lock");
    const entered: string[] = [];
    const firstEntered = deferred();
    const gate = deferred();
    // The first write to arrive (the one write primitive) holds until the test opens the gate.
    const held = (provider: SessionProvider): SessionProvider =>
      new Proxy(provider, {
        get(target, key) {
          const value: unknown = Reflect.get(target, key);
          if (key !== "writeMessages" || typeof value !== "function")
            return typeof value === "function" ? value.bind(target) : value;
          const insert = value as (...args: unknown[]) => unknown;
          return async (...args: unknown[]) => {
            const [writes] = args as [Array<{ message: SessionMessage }>];
            entered.push(writes[0]!.message.id);
            if (entered.length === 1) {
              firstEntered.resolve();
              await gate.promise;
            }
            return insert.apply(target, args);
          };
        },
      });
    const a = Session.create(held(first.session(id)));
    const b = Session.create(held(second.session(id)));
    const appendA = a.appendMessage(text("x1"));
    await firstEntered.promise;
    const appendB = b.appendMessage(text("y1"));
    // Everything before B's insert is in-process work: were it not waiting for the lock, it
    // would have reached its insert by now.
    for (let turn = 0; turn < 5; turn++)
      await new Promise((done) => setImmediate(done));
    expect(entered).toEqual(["x1"]);
    gate.resolve();
    await Promise.all([appendA, appendB]);
    expect(entered).toEqual(["x1", "y1"]);
    expect((await b.getHistory()).map((m) => m.id)).toEqual(["x1", "y1"]);
  });

  it("an erase through another backend object of the store stops a running compaction from storing its summary", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const store = await open();
      const first = store.backend();
      const second: Backend = { ...first };
      const manager = SessionManager.create(second);
      const { id } = await manager.create("race");
      const called = deferred();
      const gate = deferred();
      const session = Session.create(first.session(id)).onCompaction(
        async () => {
          called.resolve();
          await gate.promise;
          // Covers m1..m2 only: the erased m3 is outside the range, so only the erase epoch
          // tells the compaction that what it read has changed.
          return {
            summary: "m1 m2 m3",
            fromMessageId: "m1",
            toMessageId: "m2",
          };
        },
      );
      for (const messageId of ["m1", "m2", "m3"])
        await session.appendMessage(text(messageId));
      const compaction = session.compact();
      await called.promise;
      const receipt = await manager.erase({
        sessionId: id,
        messageIds: ["m3"],
      });
      expect(receipt.messages).toBe(1);
      gate.resolve();
      expect(await compaction).toBeNull();
      expect(await session.getCompactions()).toEqual([]);
      expect((await session.getHistory()).map((m) => m.id)).toEqual([
        "m1",
        "m2",
      ]);
    } finally {
      warn.mockRestore();
    }
  });
}

function text(id: string): SessionMessage {
  return { id, role: "user", parts: [{ type: "text", text: `text of ${id}` }] };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}
