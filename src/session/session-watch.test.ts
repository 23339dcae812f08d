import { describe, expect, it } from "vitest";
import type { ChangeEvent } from "./contracts/changes.js";
import type { SessionProvider } from "./contracts/provider.js";
import { InMemorySessionProvider } from "../backends/memory/index.js";
import { Session } from "./session.js";

const text = (id: string, value = id) => ({
  id,
  role: "user",
  parts: [{ type: "text", text: value }],
});

/** A custom provider: the in-memory store's required members only, no watchChanges. */
function customProvider(): SessionProvider {
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

async function settle(events: ChangeEvent[], count: number): Promise<void> {
  const deadline = Date.now() + 2000;
  while (events.length < count && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 50));
}

describe("Session.watch over a custom provider without watchChanges", () => {
  it("delivers the writes of this process's Sessions over the same store, once each", async () => {
    const provider = customProvider();
    const writer = Session.create(provider);
    const watcher = Session.create(provider);
    const events: ChangeEvent[] = [];
    const stop = watcher.watch((event) => void events.push(event));
    await writer.appendMessage(text("m1"));
    await writer.appendMessage(text("m2"));
    await writer.appendMessage(text("m2")); // duplicate: no event
    await writer.updateMessage(text("m2", "edited"));
    await writer.updateMessage(text("absent")); // no-op: no event
    const overlay = await writer.addCompaction("sum", "m1", "m2");
    await writer.removeCompaction(overlay.id);
    await writer.deleteMessages(["m2", "unknown"]);
    await writer.clearMessages();
    await settle(events, 7);
    stop();
    await writer.appendMessage(text("m3"));
    await settle(events, 8);
    expect(events.map((event) => [event.type, event.ids])).toEqual([
      ["append", ["m1"]],
      ["append", ["m2"]],
      ["update", ["m2"]],
      ["compaction", [overlay.id]],
      ["compaction", [overlay.id]],
      ["delete", ["m2"]],
      ["clear", []],
    ]);
  });
});
