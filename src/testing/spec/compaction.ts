import { build, chain, ids, tree } from "../fixtures.js";
import {
  caught,
  isIsoTimestamp,
  messageOf,
  summarizeError,
} from "../helpers.js";
import { eachLayer, type Suite } from "../suite.js";

const PREFIX = "compaction_";

/**
 * `addCompaction()` calls every backend rejects: each names its first bad argument. Unknown ids
 * and a start after the end are not on the list: such overlays are stored and ignored on read.
 */
const BAD_COMPACTION_CALLS: Array<{
  label: string;
  args: [unknown, unknown, unknown];
  names: string;
}> = [
  { label: "empty summary", args: ["", "m1", "m2"], names: "summary" },
  { label: "empty from", args: ["S", "", "m2"], names: "fromMessageId" },
  { label: "empty to", args: ["S", "m1", ""], names: "toMessageId" },
  { label: "number summary", args: [42, "m1", "m2"], names: "summary" },
  { label: "null summary", args: [null, "m1", "m2"], names: "summary" },
  {
    label: "missing from",
    args: ["S", undefined, "m2"],
    names: "fromMessageId",
  },
  { label: "object to", args: ["S", "m1", { id: "m2" }], names: "toMessageId" },
  { label: "all empty", args: ["", "", ""], names: "summary" },
];

/** Overlays applied at read time (docs/behavior/overlays.md). */
export function compactionSpec(suite: Suite): void {
  const { expect } = suite;
  suite.describe("compaction overlays", () => {
    eachLayer(suite, (suite) => {
      suite.it("stores an overlay and returns its row", async ({ open }) => {
        const session = open();
        await build(session, chain(3));
        const overlay = await session.addCompaction("summary", "m1", "m2");
        expect(typeof overlay.id).toBe("string");
        expect(overlay.id.length).toBeGreaterThan(0);
        expect(overlay.summary).toBe("summary");
        expect(overlay.fromMessageId).toBe("m1");
        expect(overlay.toMessageId).toBe("m2");
        expect(isIsoTimestamp(overlay.createdAt)).toBe(true);
        const stored = await session.getCompactions();
        expect(stored).toHaveLength(1);
        expect(stored[0]?.id).toBe(overlay.id);
        expect(stored[0]?.summary).toBe("summary");
        expect(stored[0]?.fromMessageId).toBe("m1");
        expect(stored[0]?.toMessageId).toBe("m2");
        expect(stored[0]?.createdAt).toBe(overlay.createdAt);
      });

      suite.it(
        "rejects an empty or non-string summary or id with a TypeError and stores nothing",
        async ({ open }) => {
          const session = open();
          await build(session, chain(3));
          for (const { label, args, names } of BAD_COMPACTION_CALLS) {
            const error = await caught(() =>
              session.addCompaction(...(args as [string, string, string])),
            );
            expect({ label, ...summarizeError(error) }).toEqual({
              label,
              kind: "TypeError",
              code: "INVALID_ARGUMENT",
              marked: true,
            });
            expect(String(messageOf(error))).toContain(`\`${names}\``);
          }
          expect(await session.getCompactions()).toEqual([]);
          expect(ids(await session.getHistory())).toEqual(["m1", "m2", "m3"]);
        },
      );

      suite.it("keeps the overlay's provenance meta", async ({ open }) => {
        const session = open();
        await build(session, chain(3));
        const meta = {
          summarizer: "test",
          tokensBefore: 900,
          tokensAfter: 120,
          coveredMessages: 2,
        };
        const overlay = await session.addCompaction("S", "m1", "m2", meta);
        expect(overlay.meta).toEqual(meta);
        expect((await session.getCompactions())[0]?.meta).toEqual(meta);
      });

      suite.it(
        "replaces the covered range with one synthetic message",
        async ({ open }) => {
          const session = open();
          await build(session, chain(5));
          const overlay = await session.addCompaction(
            "the summary",
            "m2",
            "m4",
          );
          const history = await session.getHistory();
          expect(ids(history)).toEqual(["m1", PREFIX + overlay.id, "m5"]);
          const synthetic = history[1]!;
          expect(synthetic.role).toBe("assistant");
          expect(synthetic.parts).toEqual([
            { type: "text", text: "the summary" },
          ]);
          expect(synthetic.createdAt instanceof Date).toBe(true);
          expect(synthetic.createdAt?.getTime()).toBe(
            Date.parse(overlay.createdAt),
          );
          expect(Object.keys(synthetic).sort()).toEqual([
            "createdAt",
            "id",
            "parts",
            "role",
          ]);
        },
      );

      suite.it(
        "returns identical synthetic messages on repeated reads",
        async ({ open }) => {
          const session = open();
          await build(session, chain(3));
          await session.addCompaction("S", "m1", "m2");
          const first = await session.getHistory();
          await new Promise((resolve) => setTimeout(resolve, 5));
          expect(await session.getHistory()).toEqual(first);
        },
      );

      suite.it(
        "leaves the originals stored and readable raw",
        async ({ open }) => {
          const session = open();
          await build(session, chain(5));
          await session.addCompaction("S", "m3", "m5");
          expect((await session.getMessage("m4"))?.id).toBe("m4");
          expect((await session.getLatestLeaf())?.id).toBe("m5");
          expect(await session.getPathLength()).toBe(5);
          expect(ids(await session.getBranches("m3"))).toEqual(["m4"]);
        },
      );

      suite.it(
        "does not store the synthetic message: its id reads as unknown",
        async ({ open }) => {
          const session = open();
          await build(session, chain(3));
          const overlay = await session.addCompaction("S", "m1", "m2");
          const synthetic = PREFIX + overlay.id;
          expect(await session.getMessage(synthetic)).toBeNull();
          expect(await session.getHistory(synthetic)).toEqual([]);
          expect(await session.getBranches(synthetic)).toEqual([]);
          expect(await session.getPathLength(synthetic)).toBe(0);
        },
      );

      suite.it(
        "accepts an overlay before its messages exist and applies it once they do",
        async ({ open }) => {
          const session = open();
          const overlay = await session.addCompaction("early", "m1", "m2");
          expect(await session.getCompactions()).toHaveLength(1);
          await build(session, chain(3));
          expect(ids(await session.getHistory())).toEqual([
            PREFIX + overlay.id,
            "m3",
          ]);
        },
      );

      suite.it(
        "ignores an overlay whose end is not on the read path",
        async ({ open }) => {
          const session = open();
          await build(session, chain(5));
          await session.addCompaction("S", "m2", "m4");
          expect(ids(await session.getHistory("m3"))).toEqual([
            "m1",
            "m2",
            "m3",
          ]);
        },
      );

      suite.it(
        "lets the newest of overlays starting at one message win",
        async ({ open }) => {
          const session = open();
          await build(session, chain(5));
          await session.addCompaction("wide", "m1", "m4");
          const narrow = await session.addCompaction("narrow", "m1", "m2");
          expect(ids(await session.getHistory())).toEqual([
            PREFIX + narrow.id,
            "m3",
            "m4",
            "m5",
          ]);
          const wider = await session.addCompaction("wider", "m1", "m4");
          expect(ids(await session.getHistory())).toEqual([
            PREFIX + wider.id,
            "m5",
          ]);
          expect(await session.getCompactions()).toHaveLength(3);
        },
      );

      suite.it(
        "skips an overlay that starts inside a range already replaced",
        async ({ open }) => {
          const session = open();
          await build(session, chain(6));
          const outer = await session.addCompaction("A", "m1", "m4");
          await session.addCompaction("B", "m2", "m5");
          expect(ids(await session.getHistory())).toEqual([
            PREFIX + outer.id,
            "m5",
            "m6",
          ]);
        },
      );

      suite.it(
        "applies consecutive overlays side by side",
        async ({ open }) => {
          const session = open();
          await build(session, chain(5));
          const first = await session.addCompaction("A", "m1", "m2");
          const second = await session.addCompaction("B", "m3", "m4");
          expect(ids(await session.getHistory())).toEqual([
            PREFIX + first.id,
            PREFIX + second.id,
            "m5",
          ]);
        },
      );

      suite.it("covers a single message with from = to", async ({ open }) => {
        const session = open();
        await build(session, chain(3));
        const overlay = await session.addCompaction("one", "m2", "m2");
        expect(ids(await session.getHistory())).toEqual([
          "m1",
          PREFIX + overlay.id,
          "m3",
        ]);
      });

      suite.it(
        "covers the leaf itself when the range ends there",
        async ({ open }) => {
          const session = open();
          await build(session, chain(3));
          const overlay = await session.addCompaction("S", "m2", "m3");
          expect(ids(await session.getHistory())).toEqual([
            "m1",
            PREFIX + overlay.id,
          ]);
          expect((await session.getLatestLeaf())?.id).toBe("m3");
        },
      );

      suite.it(
        "ignores an overlay whose start comes after its end",
        async ({ open }) => {
          const session = open();
          await build(session, chain(5));
          await session.addCompaction("reversed", "m4", "m2");
          expect(ids(await session.getHistory())).toEqual([
            "m1",
            "m2",
            "m3",
            "m4",
            "m5",
          ]);
        },
      );

      suite.it(
        "applies an overlay only on its own branch",
        async ({ open }) => {
          const session = open();
          // r → a → b → c, then a → x → y (the active branch)
          await build(
            session,
            tree({ r: { a: { b: { c: {} } } } }),
            tree({ x: { y: {} } }, { under: "a" }),
          );
          const onFirst = await session.addCompaction("first", "a", "c");
          await session.addCompaction("across", "b", "y");
          expect(ids(await session.getHistory())).toEqual(["r", "a", "x", "y"]);
          expect(ids(await session.getHistory("c"))).toEqual([
            "r",
            PREFIX + onFirst.id,
          ]);
          const shared = await session.addCompaction("shared", "r", "a");
          expect(ids(await session.getHistory())).toEqual([
            PREFIX + shared.id,
            "x",
            "y",
          ]);
          expect(ids(await session.getHistory("c"))).toEqual([
            PREFIX + shared.id,
            "b",
            "c",
          ]);
        },
      );

      suite.it(
        "lists overlays oldest first, superseded ones included",
        async ({ open }) => {
          const session = open();
          await build(session, chain(4));
          const made = [
            await session.addCompaction("1", "m1", "m2"),
            await session.addCompaction("2", "m1", "m3"),
            await session.addCompaction("3", "m1", "m2"),
          ];
          expect(ids(await session.getCompactions())).toEqual(ids(made));
        },
      );

      suite.it("keeps overlays per session", async ({ open }) => {
        const a = open("a");
        const b = open("b");
        await build(a, chain(3));
        await build(b, chain(3));
        await a.addCompaction("S", "m1", "m2");
        expect(await b.getCompactions()).toEqual([]);
        expect(ids(await b.getHistory())).toEqual(["m1", "m2", "m3"]);
      });

      suite.it(
        "removes an overlay, bringing the originals back",
        async ({ open }) => {
          const session = open();
          await build(session, chain(4));
          const overlay = await session.addCompaction("S", "m1", "m3");
          expect(await session.removeCompaction(overlay.id)).toBe(true);
          expect(ids(await session.getHistory())).toEqual([
            "m1",
            "m2",
            "m3",
            "m4",
          ]);
          expect(await session.getCompactions()).toEqual([]);
          expect(await session.removeCompaction(overlay.id)).toBe(false);
          expect(await session.removeCompaction("unknown")).toBe(false);
        },
        { requires: { deleteCompaction: true } },
      );

      suite.it(
        "falls back to the superseded overlay when the newest is removed",
        async ({ open }) => {
          const session = open();
          await build(session, chain(5));
          const older = await session.addCompaction("older", "m1", "m4");
          const newer = await session.addCompaction("newer", "m1", "m2");
          await session.removeCompaction(newer.id);
          expect(ids(await session.getHistory())).toEqual([
            PREFIX + older.id,
            "m5",
          ]);
        },
        { requires: { deleteCompaction: true } },
      );

      suite.it(
        "does not remove another session's overlay",
        async ({ open }) => {
          const a = open("a");
          const b = open("b");
          await build(b, chain(3));
          const overlay = await b.addCompaction("S", "m1", "m2");
          expect(await a.removeCompaction(overlay.id)).toBe(false);
          expect(ids(await b.getCompactions())).toEqual([overlay.id]);
        },
        { requires: { deleteCompaction: true } },
      );
    });
  });
}
