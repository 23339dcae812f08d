// The edges of erase() and prune(): typed errors for bad targets and options, a custom backend
// (NOT_SUPPORTED), an audit sink without erase() (named in the receipt), and the repeatability
// of an erase.
import { describe, expect, it } from "vitest";
import {
  InMemorySessionProvider,
  InMemorySessionRegistry,
  Session,
  SessionManager,
  type AuditEvent,
  type EraseTarget,
} from "../../src/session/index.js";
import { MemoryStore } from "../../src/backends/memory/memory-store.js";

describe("erase() and prune() arguments", () => {
  it.each([
    ["no target", undefined],
    ["an empty object", {}],
    ["an empty session id", { sessionId: "" }],
    ["messageIds that is not an array", { sessionId: "s", messageIds: "m1" }],
    ["messageIds with a number", { sessionId: "s", messageIds: ["m1", 2] }],
    ["ownerId with a session id", { ownerId: "o", sessionId: "s" }],
    ["an empty owner", { ownerId: "" }],
  ])("erase() rejects %s with INVALID_ARGUMENT", async (_, target) => {
    await expect(
      SessionManager.inMemory().erase(target as unknown as EraseTarget),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it.each([
    ["a negative age", { olderThan: -1 }],
    ["an invalid date", { abandonedBranchesOlderThan: new Date("nope") }],
    ["a string", { olderThan: "2026-01-01" }],
    ["a fractional keepLatest", { keepLatest: 1.5 }],
    ["a negative keepLatest", { keepLatest: -2 }],
  ])("prune() rejects %s with INVALID_ARGUMENT", async (_, options) => {
    await expect(
      SessionManager.inMemory().prune(options as never),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it("prune() without a criterion removes nothing", async () => {
    const manager = SessionManager.inMemory();
    const { id } = await manager.create("kept");
    await manager.append(id, text("m1"));
    const receipt = await manager.prune();
    expect(receipt).toMatchObject({ sessions: 0, messages: 0, sessionIds: [] });
    expect(await manager.getHistory(id)).toHaveLength(1);
  });

  it("a manager over a custom backend throws NOT_SUPPORTED", async () => {
    const store = new MemoryStore();
    const root = new InMemorySessionProvider({}, store);
    const manager = new SessionManager({
      registry: new InMemorySessionRegistry(store),
      openSession: (id) => Session.create(root).forSession(id),
    });
    await expect(manager.erase({ sessionId: "s" })).rejects.toMatchObject({
      code: "NOT_SUPPORTED",
    });
    await expect(manager.prune({ keepLatest: 0 })).rejects.toMatchObject({
      code: "NOT_SUPPORTED",
    });
  });

  it("names an audit sink without erase() in notCovered, and leaves its events", async () => {
    const events: AuditEvent[] = [];
    const manager = SessionManager.inMemory().withAudit({
      record: (event) => void events.push(event),
    });
    const { id } = await manager.create("audited");
    await manager.append(id, text("m1"));
    await manager.getSession(id).flushAudit();
    const receipt = await manager.erase({ sessionId: id });
    expect(receipt.notCovered).toEqual(["audit sink without erase()"]);
    expect(receipt.auditEvents).toBe(0);
    expect(events.filter((event) => event.sessionId === id)).toHaveLength(1);
  });

  it("an unknown session or message counts zero, and a repeated erase too", async () => {
    const manager = SessionManager.inMemory();
    const { id } = await manager.create("s");
    await manager.append(id, text("m1"));
    const first = await manager.erase({
      sessionId: id,
      messageIds: ["m1", "x"],
    });
    const again = await manager.erase({ sessionId: id, messageIds: ["m1"] });
    const unknown = await manager.erase({ sessionId: "no-such-session" });
    expect(first.messages).toBe(1);
    for (const receipt of [again, unknown])
      expect(receipt).toMatchObject({ sessions: 0, messages: 0, overlays: 0 });
    expect(Date.parse(first.erasedAt)).not.toBeNaN();
  });
});

function text(id: string) {
  return { id, role: "user" as const, parts: [{ type: "text", text: id }] };
}
