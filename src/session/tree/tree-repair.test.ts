import { describe, expect, it } from "vitest";
import { planTreeRepair } from "./tree-repair.js";
import type { StoredCompaction } from "../contracts/types.js";

// a → b → c → d, and b → x (a sibling branch)
const parents = new Map<string, string | null>([
  ["a", null],
  ["b", "a"],
  ["c", "b"],
  ["d", "c"],
  ["x", "b"],
]);
const children = (id: string) =>
  [...parents].filter(([, parent]) => parent === id).map(([child]) => child);
const overlay = (id: string, from: string, to: string): StoredCompaction => ({
  id,
  summary: id,
  fromMessageId: from,
  toMessageId: to,
  createdAt: "2026-01-01T00:00:00.000Z",
});

describe("planTreeRepair", () => {
  it("moves the children of deleted messages to the nearest surviving ancestor", () => {
    const plan = planTreeRepair({
      deleted: new Set(["b", "c"]),
      parentOf: (id) => parents.get(id),
      childrenOf: children,
      overlays: [],
    });
    expect(plan.reparent.sort((p, q) => p.id.localeCompare(q.id))).toEqual([
      { id: "d", parentId: "a" },
      { id: "x", parentId: "a" },
    ]);
  });

  it("makes children roots when no ancestor survives", () => {
    const plan = planTreeRepair({
      deleted: new Set(["a"]),
      parentOf: (id) => parents.get(id),
      childrenOf: children,
      overlays: [],
    });
    expect(plan.reparent).toEqual([{ id: "b", parentId: null }]);
  });

  it("shrinks overlay ranges to their surviving messages and drops emptied ones", () => {
    const plan = planTreeRepair({
      deleted: new Set(["b", "d"]),
      parentOf: (id) => parents.get(id),
      childrenOf: children,
      overlays: [
        overlay("keep", "b", "d"),
        overlay("gone", "b", "b"),
        overlay("untouched", "a", "c"),
      ],
    });
    expect(plan.moveOverlays).toEqual([
      { id: "keep", fromMessageId: "c", toMessageId: "c" },
    ]);
    expect(plan.deleteOverlays).toEqual(["gone"]);
  });
});
