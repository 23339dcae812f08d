import type {
  SessionMessage,
  StoredCompaction,
} from "../../session/contracts/types.js";
import {
  build,
  conversation,
  ids,
  textMessage,
  tree,
  type Fixture,
} from "../fixtures.js";
import { utf8Bytes } from "../helpers.js";
import { eachLayer, type Suite } from "../suite.js";

/** Multi-byte text, so a UTF-16 length is caught where UTF-8 bytes are due (docs/behavior/differences.md item 18). */
const TEXTS = [
  "first: привет",
  "second: 金曜日です",
  "third: 🎉🎉",
  "fourth: café",
  "fifth: plain",
  "sixth: ok",
];

/** Byte-budgeted windows and row stats (docs/behavior/history.md). */
export function recentHistorySpec(suite: Suite): void {
  const { expect } = suite;
  const windows = { recentHistory: true } as const;
  suite.describe("recent history", () => {
    eachLayer(suite, (suite) => {
      suite.it(
        "returns an empty window for an empty session",
        async ({ open }) => {
          expect(await open().getRecentHistory(1000)).toEqual({
            messages: [],
            truncated: false,
            totalContentBytes: 0,
          });
        },
        { requires: windows },
      );

      suite.it(
        "returns the whole active path when it fits, with its UTF-8 size",
        async ({ open }) => {
          const session = open();
          const fixture = conversation(TEXTS.slice(0, 5));
          await build(session, fixture);
          const result = await session.getRecentHistory(1_000_000);
          expect(ids(result.messages)).toEqual(fixture.ids);
          expect(json(result.messages)).toEqual(json(messagesOf(fixture)));
          expect(result.truncated).toBe(false);
          expect(result.totalContentBytes).toBe(total(messagesOf(fixture)));
        },
        { requires: windows },
      );

      suite.it(
        "takes the longest suffix within the budget",
        async ({ open }) => {
          const session = open();
          const fixture = conversation(TEXTS.slice(0, 5));
          await build(session, fixture);
          const size = sizes(fixture);
          const exact = await session.getRecentHistory(size[3]! + size[4]!);
          expect(ids(exact.messages)).toEqual(["m4", "m5"]);
          expect(exact.truncated).toBe(true);
          expect(exact.totalContentBytes).toBe(total(messagesOf(fixture)));
          const short = await session.getRecentHistory(size[3]! + size[4]! - 1);
          expect(ids(short.messages)).toEqual(["m5"]);
          expect(short.truncated).toBe(true);
        },
        { requires: windows },
      );

      suite.it(
        "always includes the leaf, even over budget",
        async ({ open }) => {
          const session = open();
          await build(session, conversation(TEXTS.slice(0, 3)));
          const result = await session.getRecentHistory(0);
          expect(ids(result.messages)).toEqual(["m3"]);
          expect(result.truncated).toBe(true);
        },
        { requires: windows },
      );

      suite.it(
        "is not truncated when the single message exceeds the budget",
        async ({ open }) => {
          const session = open();
          await build(session, conversation(TEXTS.slice(0, 1)));
          const result = await session.getRecentHistory(1);
          expect(ids(result.messages)).toEqual(["m1"]);
          expect(result.truncated).toBe(false);
        },
        { requires: windows },
      );

      suite.it(
        "keeps at least floor(minRecentMessages) items, at least one",
        async ({ open }) => {
          const session = open();
          const fixture = conversation(TEXTS.slice(0, 5));
          await build(session, fixture);
          const take = async (min: number) =>
            ids((await session.getRecentHistory(0, min)).messages);
          expect(await take(3)).toEqual(["m3", "m4", "m5"]);
          expect(await take(2.7)).toEqual(["m4", "m5"]);
          expect(await take(0)).toEqual(["m5"]);
          expect(await take(-4)).toEqual(["m5"]);
          const all = await session.getRecentHistory(0, 10);
          expect(ids(all.messages)).toEqual(fixture.ids);
          expect(all.truncated).toBe(false);
        },
        { requires: windows },
      );

      suite.it(
        "extends past the floor while older items still fit",
        async ({ open }) => {
          const session = open();
          const fixture = conversation(TEXTS.slice(0, 5));
          await build(session, fixture);
          const size = sizes(fixture);
          const budget = size[2]! + size[3]! + size[4]!;
          const result = await session.getRecentHistory(budget, 2);
          expect(ids(result.messages)).toEqual(["m3", "m4", "m5"]);
        },
        { requires: windows },
      );

      suite.it(
        "windows the active branch only",
        async ({ open }) => {
          const session = open();
          const fixture = tree({ r: { a: { b: {} }, x: { y: {} } } });
          await build(session, fixture);
          const result = await session.getRecentHistory(1_000_000);
          expect(ids(result.messages)).toEqual(["r", "x", "y"]);
          const active = messagesOf(fixture).filter((message) =>
            ["r", "x", "y"].includes(message.id),
          );
          expect(result.totalContentBytes).toBe(total(active));
        },
        { requires: windows },
      );

      suite.it(
        "applies overlays before windowing",
        async ({ open }) => {
          const session = open();
          const fixture = conversation(TEXTS);
          await build(session, fixture);
          const overlay = await session.addCompaction("short", "m1", "m4");
          const summary = summaryBytes(overlay);
          const size = sizes(fixture);
          const all = await session.getRecentHistory(
            summary + size[4]! + size[5]!,
          );
          expect(ids(all.messages)).toEqual([
            `compaction_${overlay.id}`,
            "m5",
            "m6",
          ]);
          expect(all.truncated).toBe(false);
          expect(all.totalContentBytes).toBe(total(messagesOf(fixture)));
          const tail = await session.getRecentHistory(
            summary + size[4]! + size[5]! - 1,
          );
          expect(ids(tail.messages)).toEqual(["m5", "m6"]);
          expect(tail.truncated).toBe(true);
        },
        { requires: windows },
      );

      suite.it(
        "uses the summary when the window starts inside a compacted range",
        async ({ open }) => {
          const session = open();
          const fixture = conversation(TEXTS);
          await build(session, fixture);
          const overlay = await session.addCompaction("middle", "m2", "m5");
          const budget = summaryBytes(overlay) + sizes(fixture)[5]!;
          const result = await session.getRecentHistory(budget);
          expect(ids(result.messages)).toEqual([
            `compaction_${overlay.id}`,
            "m6",
          ]);
          expect(result.truncated).toBe(true);
          const synthetic = result.messages[0]!;
          expect(synthetic.role).toBe("assistant");
          expect(synthetic.parts).toEqual([{ type: "text", text: "middle" }]);
        },
        { requires: windows },
      );

      suite.it(
        "reports id, role and UTF-8 bytes of each stored row on the active path",
        async ({ open }) => {
          const session = open();
          const fixture = conversation(TEXTS.slice(0, 4));
          const branch = tree({ x: {} }, { under: "m2" });
          await build(session, fixture, branch);
          await session.addCompaction("S", "m1", "m2");
          const active = [
            ...messagesOf(fixture).slice(0, 2),
            ...messagesOf(branch),
          ];
          expect(await session.getHistoryRowStats()).toEqual(
            active.map((message) => ({
              id: message.id,
              role: message.role,
              bytes: utf8Bytes(JSON.stringify(message)),
            })),
          );
        },
        { requires: { rowStats: true } },
      );

      suite.it(
        "reports the new role and size after an update",
        async ({ open }) => {
          const session = open();
          await build(session, conversation(TEXTS.slice(0, 2)));
          const updated = textMessage("m1", "edited: 金曜日 🎉", "system");
          await session.updateMessage(updated);
          const [first] = (await session.getHistoryRowStats()) ?? [];
          expect(first).toEqual({
            id: "m1",
            role: "system",
            bytes: utf8Bytes(JSON.stringify(updated)),
          });
        },
        { requires: { rowStats: true } },
      );

      suite.it(
        "reports no row stats for an empty session",
        async ({ open }) => {
          expect(await open().getHistoryRowStats()).toEqual([]);
        },
        { requires: { rowStats: true } },
      );
    });
  });
}

// --- Internal helpers ---

function messagesOf(fixture: Fixture): SessionMessage[] {
  return fixture.steps.map((step) => step.message);
}

function sizes(fixture: Fixture): number[] {
  return messagesOf(fixture).map((message) =>
    utf8Bytes(JSON.stringify(message)),
  );
}

function total(messages: readonly SessionMessage[]): number {
  return messages.reduce(
    (sum, message) => sum + utf8Bytes(JSON.stringify(message)),
    0,
  );
}

/** The size of the synthetic message an overlay becomes (docs/behavior/history.md step 2). */
function summaryBytes(overlay: StoredCompaction): number {
  return utf8Bytes(
    JSON.stringify({
      id: `compaction_${overlay.id}`,
      role: "assistant",
      parts: [{ type: "text", text: overlay.summary }],
      createdAt: overlay.createdAt,
    }),
  );
}

function json(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}
