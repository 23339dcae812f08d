import { describe, expect, it } from "vitest";
import type { ChangeEvent } from "../contracts/changes.js";
import type { SeedSessionProvider } from "../contracts/provider.js";
import { InMemorySessionProvider } from "../../backends/memory/index.js";
import { InProcessChangeLog } from "../state/change-feed.js";
import { Session } from "./session.js";

const text = (id: string, value = id) => ({
  id,
  role: "user",
  parts: [{ type: "text", text: value }],
});

/** A seed-shaped custom provider: the in-memory store's required members only, no watchChanges. */
function customProvider(): SeedSessionProvider {
  const base = new InMemorySessionProvider();
  return {
    storeIdentity: base.storeIdentity,
    getMessage: (id) => base.getMessage(id),
    getHistory: (leafId) => base.getHistory(leafId),
    getLatestLeaf: () => base.getLatestLeaf(),
    getBranches: (messageId) => base.getBranches(messageId),
    getPathLength: (leafId) => base.getPathLength(leafId),
    appendMessage: (message, parentId) => base.appendMessage(message, parentId),
    updateMessage: (message) => base.updateMessage(message),
    deleteMessages: (ids) => base.deleteMessages(ids),
    clearMessages: () => base.clearMessages(),
    addCompaction: (summary, from, to, meta) =>
      base.addCompaction(summary, from, to, meta),
    getCompactions: () => base.getCompactions(),
    deleteCompaction: (id) => base.deleteCompaction(id),
  };
}

/** The same custom provider, declaring a change feed of its own writes with InProcessChangeLog. */
function customProviderWithFeed(log: InProcessChangeLog): SeedSessionProvider {
  const inner = customProvider();
  return {
    ...inner,
    async appendMessage(message, parentId) {
      const inserted = await inner.appendMessage(message, parentId);
      if (inserted !== false) log.record("", "append", [message.id]);
      return inserted;
    },
    async clearMessages() {
      await inner.clearMessages();
      log.record("", "clear", []);
    },
    watchChanges: (listener, options = {}) =>
      log.watch(listener, {
        sessionId: options.allSessions ? null : "",
        after: options.after,
      }),
  };
}

async function settle(events: ChangeEvent[], count: number): Promise<void> {
  // A bound on waiting for what must come, not a duration under test: generous, so a loaded
  // machine is slow rather than failing; it returns as soon as the events are there.
  const deadline = Date.now() + 20_000;
  while (events.length < count && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("Session.watch over a custom provider", () => {
  it("throws NOT_SUPPORTED when the provider declares no watchChanges", () => {
    const session = Session.create(customProvider());
    expect(() => session.watch(() => undefined)).toThrow(
      expect.objectContaining({ code: "NOT_SUPPORTED" }),
    );
  });

  it("delivers and resumes through a provider that composes InProcessChangeLog", async () => {
    const log = new InProcessChangeLog(5);
    const session = Session.create(customProviderWithFeed(log));
    const events: ChangeEvent[] = [];
    const stop = session.watch((event) => void events.push(event));
    await session.appendMessage(text("m1"));
    await session.appendMessage(text("m2"));
    await settle(events, 2);
    stop();
    expect(events.map((event) => [event.type, event.ids, event.seq])).toEqual([
      ["append", ["m1"], 1],
      ["append", ["m2"], 2],
    ]);
    // Written while nobody watched: a watch resuming after m1 gets m2 and m3, then live m4.
    await session.appendMessage(text("m3"));
    const resumed: ChangeEvent[] = [];
    const again = session.watch((event) => void resumed.push(event), {
      after: events[0]!.cursor,
    });
    await session.appendMessage(text("m4"));
    await settle(resumed, 3);
    again();
    expect(resumed.map((event) => event.ids[0])).toEqual(["m2", "m3", "m4"]);
    // Further back than the log keeps (5 entries): one reset, then live events.
    for (const id of ["m5", "m6", "m7", "m8"])
      await session.appendMessage(text(id));
    const reset: ChangeEvent[] = [];
    const third = session.watch((event) => void reset.push(event), {
      after: 1,
    });
    await session.clearMessages();
    await settle(reset, 2);
    third();
    expect(reset.map((event) => event.type)).toEqual(["reset", "clear"]);
    expect(reset[0]!.seq).toBe(8);
  });
});
