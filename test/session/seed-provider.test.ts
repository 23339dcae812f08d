// A provider written for the seed API (appendMessage returning boolean | void, no writeMessages)
// goes through the Session's one write primitive by the adapter Session.create() applies.
import { describe, expect, it } from "vitest";
import { InMemorySessionProvider } from "../../src/backends/memory/index.js";
import type { SeedSessionProvider } from "../../src/session/contracts/provider.js";
import type { SessionMessage } from "../../src/session/contracts/types.js";
import { adaptSeedProvider } from "../../src/session/facade/seed-provider.js";
import { Session } from "../../src/session/facade/session.js";

const text = (id: string, value = id): SessionMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text: value }],
});

/** The seed's shape over the in-memory store; `appendMessage` answers nothing, as the seed's may. */
function seedProvider(base = new InMemorySessionProvider()): {
  provider: SeedSessionProvider;
  appended: Array<[string, string | null | undefined]>;
} {
  const appended: Array<[string, string | null | undefined]> = [];
  const provider: SeedSessionProvider = {
    getMessage: (id) => base.getMessage(id),
    getHistory: (leafId) => base.getHistory(leafId),
    getLatestLeaf: () => base.getLatestLeaf(),
    getBranches: (id) => base.getBranches(id),
    getPathLength: (leafId) => base.getPathLength(leafId),
    appendMessage: (message, parentId) => {
      appended.push([message.id, parentId]);
      base.appendMessage(message, parentId);
    },
    updateMessage: (message) => base.updateMessage(message),
    deleteMessages: (ids) => base.deleteMessages(ids),
    clearMessages: () => base.clearMessages(),
    addCompaction: (summary, from, to, meta) =>
      base.addCompaction(summary, from, to, meta),
    getCompactions: () => base.getCompactions(),
  };
  return { provider, appended };
}

describe("a seed-shaped provider", () => {
  it("is written through appendMessage, one message at a time, each under the one before", async () => {
    const { provider, appended } = seedProvider();
    const session = Session.create(provider);
    const first = await session.appendMessage(text("m1"));
    expect([first.inserted, first.message.id]).toEqual([true, "m1"]);
    expect(await session.appendAll([text("m2"), text("m3")])).toBe(2);
    await session.appendMessage(text("b1"), "m1");
    // The first parent is read before the insert and passed explicitly.
    expect(appended).toEqual([
      ["m1", null],
      ["m2", "m1"],
      ["m3", "m2"],
      ["b1", "m1"],
    ]);
    expect((await session.getHistory("m3")).map((m) => m.id)).toEqual([
      "m1",
      "m2",
      "m3",
    ]);
  });

  it("reads a `false` from appendMessage as a taken id, and reports the stored message", async () => {
    const base = new InMemorySessionProvider();
    const { provider } = seedProvider(base);
    const session = Session.create({
      ...provider,
      appendMessage: (message, parentId) =>
        base.appendMessage(message, parentId),
    });
    await session.appendMessage(text("m1", "first"));
    const again = await session.appendMessage(text("m1", "second"));
    expect([again.inserted, again.matchesStored]).toEqual([false, false]);
    expect(again.message.parts).toEqual(text("m1", "first").parts);
  });

  it("is adapted without being changed, and sessions over it share its identity", () => {
    const { provider } = seedProvider();
    const members = { ...provider };
    const adapted = adaptSeedProvider(provider);
    expect(typeof adapted.writeMessages).toBe("function");
    expect(adapted.storeIdentity).toBe(provider);
    expect(adaptSeedProvider(provider).storeIdentity).toBe(
      adapted.storeIdentity,
    );
    expect(adapted.insertChecksRegistry).toBe(false);
    expect({ ...provider }).toEqual(members);
    // A provider with writeMessages is taken as it is.
    const native = new InMemorySessionProvider();
    expect(adaptSeedProvider(native)).toBe(native);
  });

  it("checks every message of a raw batch before the first write", async () => {
    const { provider, appended } = seedProvider();
    const adapted = adaptSeedProvider(provider);
    await expect(
      adapted.writeMessages([
        { message: text("m1") },
        { message: { id: "m2", role: "user" } as SessionMessage },
      ]),
    ).rejects.toMatchObject({ code: "INVALID_MESSAGE" });
    expect(appended).toEqual([]);
  });
});
