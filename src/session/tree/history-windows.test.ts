import { describe, expect, it } from "vitest";
import { historyWindows, type WindowBounds } from "./history-windows.js";
import { historyFromPath } from "./path-history.js";
import type { SessionMessage, StoredCompaction } from "../contracts/types.js";

const path = Array.from({ length: 10 }, (_, index) => ({
  id: `m${index + 1}`,
  bytes: 10,
}));
const stored = new Map<string, SessionMessage>(
  path.map(({ id }) => [id, { id, role: "user", parts: [] }]),
);

function overlay(id: string, from: string, to: string): StoredCompaction {
  return {
    id,
    summary: `summary ${id}`,
    fromMessageId: from,
    toMessageId: to,
    createdAt: "2026-01-02T03:04:05.006Z",
  };
}

function bounds(overrides: Partial<WindowBounds> = {}): WindowBounds {
  return {
    batchSize: 3,
    maxBatchBytes: 1_000_000,
    newestFirst: false,
    ...overrides,
  };
}

/** The windows as lists of output ids: row ids, or `compaction_<id>` for summaries. */
function windowIds(
  overlays: StoredCompaction[],
  options: Partial<WindowBounds> = {},
  entries = path,
): string[][] {
  return [...historyWindows(entries, overlays, bounds(options))].map((window) =>
    window.spans.map((span) =>
      span.kind === "row"
        ? entries[span.index]!.id
        : `compaction_${span.overlay.id}`,
    ),
  );
}

function getHistoryIds(overlays: StoredCompaction[]): string[] {
  return historyFromPath(
    path.map((entry) => entry.id),
    (index) => stored.get(path[index]!.id),
    overlays,
  ).map((message) => message.id);
}

describe("historyWindows", () => {
  it("cuts a path without overlays into windows of batchSize", () => {
    expect(windowIds([])).toEqual([
      ["m1", "m2", "m3"],
      ["m4", "m5", "m6"],
      ["m7", "m8", "m9"],
      ["m10"],
    ]);
  });

  it("keeps an overlay whose range crosses window edges as one summary", () => {
    // m2..m7 spans what would be three windows of three rows.
    const overlays = [overlay("o1", "m2", "m7")];
    const windows = windowIds(overlays);
    expect(windows).toEqual([
      ["m1", "compaction_o1", "m8"],
      ["m9", "m10"],
    ]);
    expect(windows.flat()).toEqual(getHistoryIds(overlays));
  });

  it("applies nested and superseding overlays as getHistory does", () => {
    const cases: StoredCompaction[][] = [
      // A newer overlay at the same start supersedes the older one.
      [overlay("old", "m3", "m5"), overlay("new", "m3", "m8")],
      // An overlay nested inside an earlier, wider one is covered by it.
      [overlay("outer", "m2", "m9"), overlay("inner", "m4", "m5")],
      // Adjacent overlays on each side of a window edge, and one off the path.
      [
        overlay("a", "m3", "m4"),
        overlay("b", "m5", "m6"),
        overlay("off", "x1", "m2"),
      ],
    ];
    for (const overlays of cases) {
      for (const batchSize of [1, 2, 3, 4, 50]) {
        const windows = windowIds(overlays, { batchSize });
        expect(windows.flat()).toEqual(getHistoryIds(overlays));
        for (const window of windows)
          expect(window.length).toBeLessThanOrEqual(batchSize);
      }
    }
  });

  it("runs leaf to root with newestFirst, overlays included", () => {
    const overlays = [overlay("o1", "m3", "m6")];
    const windows = windowIds(overlays, { newestFirst: true, batchSize: 2 });
    expect(windows).toEqual([
      ["m10", "m9"],
      ["m8", "m7"],
      ["compaction_o1", "m2"],
      ["m1"],
    ]);
    expect(windows.flat()).toEqual(getHistoryIds(overlays).reverse());
  });

  it("bounds windows by bytes and puts an oversized row alone", () => {
    const sized = [
      { id: "a", bytes: 40 },
      { id: "b", bytes: 40 },
      { id: "big", bytes: 500 },
      { id: "c", bytes: 60 },
      { id: "d", bytes: 50 },
    ];
    expect(windowIds([], { batchSize: 10, maxBatchBytes: 100 }, sized)).toEqual(
      [["a", "b"], ["big"], ["c"], ["d"]],
    );
  });

  it("lists the stored ids to fetch per window, summaries excluded", () => {
    const windows = [
      ...historyWindows(path, [overlay("o1", "m2", "m4")], bounds()),
    ];
    expect(windows[0]!.rowIds).toEqual(["m1", "m5"]);
  });

  it("yields nothing for an empty path", () => {
    expect(windowIds([], {}, [])).toEqual([]);
  });
});
