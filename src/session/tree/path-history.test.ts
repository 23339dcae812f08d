import { describe, expect, it } from "vitest";
import { historyFromPath } from "./path-history.js";
import { assertCompactionArguments } from "./compaction-args.js";
import type { SessionMessage, StoredCompaction } from "../contracts/types.js";

const ids = ["m1", "m2", "m3", "m4"];
const stored = new Map<string, SessionMessage>(
  ids.map((id) => [id, { id, role: "user", parts: [] }]),
);
const overlay: StoredCompaction = {
  id: "o1",
  summary: "S",
  fromMessageId: "m2",
  toMessageId: "m3",
  createdAt: "2026-01-02T03:04:05.006Z",
};

describe("historyFromPath", () => {
  it("skips unreadable rows with and without overlays", () => {
    const messageAt = (index: number) =>
      ids[index] === "m4" ? null : stored.get(ids[index]!);
    expect(historyFromPath(ids, messageAt, []).map((m) => m.id)).toEqual([
      "m1",
      "m2",
      "m3",
    ]);
    expect(historyFromPath(ids, messageAt, [overlay]).map((m) => m.id)).toEqual(
      ["m1", "compaction_o1"],
    );
  });

  it("reads only the rows that survive the overlays", () => {
    const read: number[] = [];
    historyFromPath(
      ids,
      (index) => {
        read.push(index);
        return stored.get(ids[index]!);
      },
      [overlay],
    );
    expect(read).toEqual([0, 3]);
  });
});

describe("assertCompactionArguments", () => {
  it("names the first argument that is not a non-empty string", () => {
    expect(() => assertCompactionArguments("S", "m1", "m2")).not.toThrow();
    expect(() => assertCompactionArguments("S", 1, "")).toThrow(
      "[arbor] addCompaction() needs a non-empty string `fromMessageId`",
    );
    expect(() => assertCompactionArguments("", "m1", "m2", "sqlite")).toThrow(
      "[arbor] [sqlite] addCompaction() needs a non-empty string `summary`",
    );
  });
});
