// The pure rules every backend's erase and prune share (src/session/erase/erase-rules.ts).
import { describe, expect, it } from "vitest";
import {
  abandonedBranches,
  overlaysCovering,
  rangeIds,
  relinkHistory,
  type HistoryEntry,
} from "../../src/session/erase/erase-rules.js";
import { auditEventErased } from "../../src/session/erase/audit-erase.js";

describe("erase rules", () => {
  //   r ─ a ─ b ─ c        (active path r, a, b, c)
  //   │   └ x ─ y          (x old, y new: kept, with x above it)
  //   └ p ─ q              (both old: one branch)
  const records = [
    { id: "r", parentId: null, createdAt: "1" },
    { id: "a", parentId: "r", createdAt: "1" },
    { id: "x", parentId: "a", createdAt: "1" },
    { id: "p", parentId: "r", createdAt: "1" },
    { id: "q", parentId: "p", createdAt: "1" },
    { id: "b", parentId: "a", createdAt: "1" },
    { id: "y", parentId: "x", createdAt: "3" },
    { id: "c", parentId: "b", createdAt: "3" },
  ];

  it("abandoned branches: off the active path, old, with only old descendants", () => {
    expect(
      abandonedBranches(records, new Set(["r", "a", "b", "c"]), "2"),
    ).toEqual({ ids: ["p", "q"], branches: 1 });
    expect(
      abandonedBranches(records, new Set(["r", "a", "b", "c"]), "4"),
    ).toEqual({
      ids: ["x", "p", "q", "y"],
      branches: 2,
    });
  });

  it("an overlay goes when its range holds an erased message or it ends on one", () => {
    const parents = new Map(records.map((r) => [r.id, r.parentId]));
    const range = (o: { toMessageId: string; fromMessageId: string }) =>
      rangeIds(o.toMessageId, o.fromMessageId, (id) => parents.get(id));
    const overlay = (id: string, from: string, to: string) => ({
      id,
      summary: id,
      fromMessageId: from,
      toMessageId: to,
      createdAt: "",
    });
    const overlays = [
      overlay("covers", "r", "c"),
      overlay("beside", "p", "q"),
      overlay("ends", "b", "b"),
      overlay("not-a-range", "q", "c"),
    ];
    expect(
      overlaysCovering(overlays, new Set(["a"]), range).map((o) => o.id),
    ).toEqual(["covers"]);
    expect(
      overlaysCovering(overlays, new Set(["b"]), range).map((o) => o.id),
    ).toEqual(["covers", "ends"]);
    expect(
      overlaysCovering(overlays, new Set(["q"]), range).map((o) => o.id),
    ).toEqual(["beside", "not-a-range"]);
  });

  it("relinks previousContent past dropped block history entries", () => {
    const entry = (
      version: number,
      content: string,
      previous: string | null,
      call: string | null,
    ): HistoryEntry => ({
      label: "memory",
      version,
      content,
      previousContent: previous,
      toolCallId: call,
    });
    const entries = [
      entry(1, "one", "", null),
      entry(2, "secret", "one", "call-x"),
      entry(3, "three", "secret", null),
      entry(4, "secret again", "three", "call-x"),
    ];
    expect(relinkHistory(entries, (e) => e.toolCallId === "call-x")).toEqual([
      { label: "memory", version: 3, previousContent: "one" },
    ]);
  });

  it("audit events: the session's all, or those quoting an erased id", () => {
    const event = (payload: unknown) => ({ sessionId: "s", payload });
    const target = { sessionId: "s", ids: ["m2", "o1"] };
    expect(auditEventErased(event({ message: { id: "m2" } }), target)).toBe(
      true,
    );
    expect(auditEventErased(event({ compaction: { id: "o1" } }), target)).toBe(
      true,
    );
    expect(
      auditEventErased(event({ messages: [{ id: "compaction_o1" }] }), target),
    ).toBe(true);
    // A reference (a parent id) does not quote the message.
    expect(
      auditEventErased(
        event({ message: { id: "m3" }, parentId: "m2" }),
        target,
      ),
    ).toBe(false);
    expect(
      auditEventErased(
        { sessionId: "t", payload: { message: { id: "m2" } } },
        target,
      ),
    ).toBe(false);
    expect(auditEventErased(event({}), { sessionId: "s", ids: null })).toBe(
      true,
    );
  });
});
