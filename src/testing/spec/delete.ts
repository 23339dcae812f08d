import { build, chain, ids, textMessage, tree } from "../fixtures.js";
import { eachLayer, type Suite } from "../suite.js";

/** Deleting with tree and overlay repair, and clearing (docs/behavior/messages-and-tree.md, docs/behavior/differences.md item 8). */
export function deleteSpec(suite: Suite): void {
  const { expect } = suite;
  suite.describe("delete", () => {
    eachLayer(suite, (suite) => {
      suite.it(
        "makes the parent the latest leaf when the tip is deleted",
        async ({ open }) => {
          const session = open();
          await build(session, chain(3));
          await session.deleteMessages(["m3"]);
          expect(await session.getMessage("m3")).toBeNull();
          expect((await session.getLatestLeaf())?.id).toBe("m2");
          expect(ids(await session.getHistory())).toEqual(["m1", "m2"]);
          expect(await session.getBranches("m2")).toEqual([]);
        },
      );

      suite.it(
        "re-parents the children of a deleted interior message to its parent",
        async ({ open }) => {
          const session = open();
          await build(session, chain(4));
          await session.deleteMessages(["m2"]);
          expect(ids(await session.getHistory())).toEqual(["m1", "m3", "m4"]);
          expect(ids(await session.getBranches("m1"))).toEqual(["m3"]);
          expect(await session.getPathLength()).toBe(3);
        },
      );

      suite.it(
        "re-parents past several deleted ancestors to the nearest survivor",
        async ({ open }) => {
          const session = open();
          await build(session, chain(5));
          await session.deleteMessages(["m3", "m2"]);
          expect(ids(await session.getHistory())).toEqual(["m1", "m4", "m5"]);
          expect(ids(await session.getHistory("m4"))).toEqual(["m1", "m4"]);
        },
      );

      suite.it("makes the child of a deleted root a root", async ({ open }) => {
        const session = open();
        await build(session, chain(3));
        await session.deleteMessages(["m1"]);
        expect(ids(await session.getHistory())).toEqual(["m2", "m3"]);
        expect(ids(await session.getHistory("m2"))).toEqual(["m2"]);
      });

      suite.it(
        "re-parents every child, keeping their insertion order",
        async ({ open }) => {
          const session = open();
          await build(session, tree({ r: { a: { b: {}, c: {} }, z: {} } }));
          await session.deleteMessages(["a"]);
          expect(ids(await session.getBranches("r"))).toEqual(["b", "c", "z"]);
          expect(ids(await session.getHistory("c"))).toEqual(["r", "c"]);
          expect((await session.getLatestLeaf())?.id).toBe("z");
        },
      );

      suite.it(
        "switches to the newest remaining leaf when the active tip is deleted",
        async ({ open }) => {
          const session = open();
          // r → a, r → b (newer), a → c (newest): deleting c leaves a and b; b is newer.
          await build(
            session,
            tree({ r: { a: {}, b: {} } }),
            tree({ c: {} }, { under: "a" }),
          );
          await session.deleteMessages(["c"]);
          expect((await session.getLatestLeaf())?.id).toBe("b");
          expect(ids(await session.getHistory())).toEqual(["r", "b"]);
        },
      );

      suite.it(
        "auto-parents the next append to the recomputed latest leaf",
        async ({ open }) => {
          const session = open();
          await build(session, tree({ r: { a: {}, b: { c: {} } } }));
          await session.deleteMessages(["c"]);
          await session.appendMessage(textMessage("d"));
          expect(ids(await session.getHistory())).toEqual(["r", "b", "d"]);
        },
      );

      suite.it("ignores unknown ids and an empty list", async ({ open }) => {
        const session = open();
        await build(session, chain(3));
        await session.deleteMessages([]);
        await session.deleteMessages(["ghost"]);
        await session.deleteMessages(["ghost", "m2"]);
        expect(ids(await session.getHistory())).toEqual(["m1", "m3"]);
      });

      suite.it(
        "deletes only this session's message with that id",
        async ({ open }) => {
          const a = open("a");
          const b = open("b");
          await build(a, chain(2));
          await build(b, chain(2));
          await a.deleteMessages(["m1", "m2"]);
          expect(await a.getHistory()).toEqual([]);
          expect(ids(await b.getHistory())).toEqual(["m1", "m2"]);
        },
      );

      suite.it(
        "moves an overlay's start to the next surviving message",
        async ({ open }) => {
          const session = open();
          await build(session, chain(5));
          const overlay = await session.addCompaction("S", "m2", "m4");
          await session.deleteMessages(["m2"]);
          const [stored] = await session.getCompactions();
          expect(stored?.fromMessageId).toBe("m3");
          expect(stored?.toMessageId).toBe("m4");
          expect(ids(await session.getHistory())).toEqual([
            "m1",
            `compaction_${overlay.id}`,
            "m5",
          ]);
        },
      );

      suite.it(
        "moves an overlay's end to the previous surviving message",
        async ({ open }) => {
          const session = open();
          await build(session, chain(5));
          const overlay = await session.addCompaction("S", "m2", "m4");
          await session.deleteMessages(["m4"]);
          const [stored] = await session.getCompactions();
          expect(stored?.fromMessageId).toBe("m2");
          expect(stored?.toMessageId).toBe("m3");
          expect(ids(await session.getHistory())).toEqual([
            "m1",
            `compaction_${overlay.id}`,
            "m5",
          ]);
        },
      );

      suite.it(
        "shrinks an overlay from both ends when both endpoints are deleted",
        async ({ open }) => {
          const session = open();
          await build(session, chain(5));
          const overlay = await session.addCompaction("S", "m2", "m4");
          await session.deleteMessages(["m2", "m4"]);
          const [stored] = await session.getCompactions();
          expect(stored?.fromMessageId).toBe("m3");
          expect(stored?.toMessageId).toBe("m3");
          expect(ids(await session.getHistory())).toEqual([
            "m1",
            `compaction_${overlay.id}`,
            "m5",
          ]);
        },
      );

      suite.it(
        "keeps an overlay when a message inside its range is deleted",
        async ({ open }) => {
          const session = open();
          await build(session, chain(5));
          const overlay = await session.addCompaction("S", "m1", "m4");
          await session.deleteMessages(["m2"]);
          const [stored] = await session.getCompactions();
          expect(stored?.fromMessageId).toBe("m1");
          expect(stored?.toMessageId).toBe("m4");
          expect(ids(await session.getHistory())).toEqual([
            `compaction_${overlay.id}`,
            "m5",
          ]);
        },
      );

      suite.it(
        "deletes an overlay whose whole range is deleted",
        async ({ open }) => {
          const session = open();
          await build(session, chain(5));
          await session.addCompaction("S", "m2", "m3");
          await session.deleteMessages(["m2", "m3"]);
          expect(await session.getCompactions()).toEqual([]);
          expect(ids(await session.getHistory())).toEqual(["m1", "m4", "m5"]);
        },
      );

      suite.it(
        "clears messages and overlays of this session only",
        async ({ open }) => {
          const a = open("a");
          const b = open("b");
          for (const session of [a, b]) {
            await build(session, chain(3));
            await session.addCompaction("S", "m1", "m2");
          }
          await a.clearMessages();
          expect(await a.getHistory()).toEqual([]);
          expect(await a.getLatestLeaf()).toBeNull();
          expect(await a.getPathLength()).toBe(0);
          expect(await a.getMessage("m1")).toBeNull();
          expect(await a.getCompactions()).toEqual([]);
          expect(await b.getPathLength()).toBe(3);
          expect(await b.getCompactions()).toHaveLength(1);
        },
      );

      suite.it(
        "accepts an id again after clear, as a new root",
        async ({ open }) => {
          const session = open();
          await build(session, chain(2));
          await session.clearMessages();
          await session.appendMessage(textMessage("m2", "again"));
          expect(ids(await session.getHistory())).toEqual(["m2"]);
          expect((await session.getMessage("m2"))?.parts[0]?.text).toBe(
            "again",
          );
        },
      );

      suite.it("clears an empty session without error", async ({ open }) => {
        const session = open();
        await session.clearMessages();
        expect(await session.getHistory()).toEqual([]);
      });
    });
  });
}
