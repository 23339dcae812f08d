import { describe, expect, it } from "vitest";
import { applyCompactions, isCompactionMessage } from "./apply-compactions.js";
import type { SessionMessage, StoredCompaction } from "../contracts/types.js";

const path: SessionMessage[] = ["m1", "m2", "m3", "m4"].map((id) => ({
  id,
  role: "user",
  parts: [],
}));
const overlay = (id: string, from: string, to: string): StoredCompaction => ({
  id,
  summary: `summary ${id}`,
  fromMessageId: from,
  toMessageId: to,
  createdAt: "2026-01-02T03:04:05.006Z",
});

describe("applyCompactions", () => {
  it("replaces a range with one synthetic assistant message dated by the overlay", () => {
    const view = applyCompactions(path, [overlay("o1", "m1", "m2")]);
    expect(view.map((m) => m.id)).toEqual(["compaction_o1", "m3", "m4"]);
    expect(view[0]).toEqual({
      id: "compaction_o1",
      role: "assistant",
      parts: [{ type: "text", text: "summary o1" }],
      createdAt: new Date("2026-01-02T03:04:05.006Z"),
    });
    expect(isCompactionMessage(view[0])).toBe(true);
  });

  it("lets the newest overlay starting at a message supersede older ones", () => {
    const view = applyCompactions(path, [
      overlay("old", "m1", "m2"),
      overlay("new", "m1", "m3"),
    ]);
    expect(view.map((m) => m.id)).toEqual(["compaction_new", "m4"]);
  });

  it("ignores overlays with an endpoint off the path, reversed, or inside an applied range", () => {
    const view = applyCompactions(path, [
      overlay("outer", "m1", "m3"),
      overlay("inner", "m2", "m4"),
      overlay("reversed", "m4", "m3"),
      overlay("offpath", "m4", "elsewhere"),
    ]);
    expect(view.map((m) => m.id)).toEqual(["compaction_outer", "m4"]);
  });
});
