import { build, chain, ids, textMessage, tree } from "../fixtures.js";
import { eachLayer, type Suite } from "../suite.js";

/** Longer than the reference's 10,000-step recursion cap (docs/behavior/differences.md item 1). */
const DEEP_PATH_LENGTH = 10_010;
/** Messages per `appendMessages` call while the deep path is written. */
const DEEP_BATCH = 1_001;

/** Reading paths: getHistory, the latest leaf, branches, path length (docs/behavior/messages-and-tree.md, docs/behavior/history.md). */
export function historySpec(suite: Suite): void {
  const { expect } = suite;
  suite.describe("history", () => {
    eachLayer(suite, (suite) => {
      suite.it("reads an empty session as empty", async ({ open }) => {
        const session = open();
        expect(await session.getHistory()).toEqual([]);
        expect(await session.getLatestLeaf()).toBeNull();
        expect(await session.getPathLength()).toBe(0);
        expect(await session.getMessage("m1")).toBeNull();
        expect(await session.getBranches("m1")).toEqual([]);
      });

      suite.it(
        "reads the path up to any message, interior ones included",
        async ({ open }) => {
          const session = open();
          await build(session, tree({ r: { a: { b: {}, c: { d: {} } } } }));
          expect(ids(await session.getHistory("a"))).toEqual(["r", "a"]);
          expect(ids(await session.getHistory("b"))).toEqual(["r", "a", "b"]);
          expect(ids(await session.getHistory("d"))).toEqual([
            "r",
            "a",
            "c",
            "d",
          ]);
          expect(ids(await session.getHistory("r"))).toEqual(["r"]);
        },
      );

      suite.it(
        'reads the latest leaf for leafId undefined, null or ""',
        async ({ open }) => {
          const session = open();
          await build(session, tree({ r: { a: {}, b: {} } }));
          for (const leafId of [undefined, null, ""]) {
            expect(ids(await session.getHistory(leafId))).toEqual(["r", "b"]);
            expect(await session.getPathLength(leafId)).toBe(2);
          }
        },
      );

      suite.it("reads an unknown leafId as an empty path", async ({ open }) => {
        const session = open();
        await build(session, chain(3));
        expect(await session.getHistory("unknown")).toEqual([]);
        expect(await session.getPathLength("unknown")).toBe(0);
      });

      suite.it(
        "reads another session's message id as unknown",
        async ({ open }) => {
          await build(open("b"), chain(2, "b"));
          const session = open("a");
          await build(session, chain(2));
          expect(await session.getHistory("b2")).toEqual([]);
          expect(await session.getPathLength("b2")).toBe(0);
          expect(await session.getMessage("b1")).toBeNull();
          expect(await session.getBranches("b1")).toEqual([]);
        },
      );

      suite.it(
        "takes the most recently inserted leaf as the latest, not the deepest",
        async ({ open }) => {
          const session = open();
          await build(session, chain(4), tree({ x: {} }, { under: "m1" }));
          expect((await session.getLatestLeaf())?.id).toBe("x");
          expect(ids(await session.getHistory())).toEqual(["m1", "x"]);
          await session.appendMessage(textMessage("m5"), "m4");
          expect((await session.getLatestLeaf())?.id).toBe("m5");
          expect(await session.getPathLength()).toBe(5);
        },
      );

      suite.it(
        "orders by insertion, never by the message's createdAt",
        async ({ open }) => {
          const session = open();
          await session.appendMessage({
            ...textMessage("future"),
            createdAt: new Date("2999-01-01T00:00:00.000Z"),
          });
          await session.appendMessage(
            {
              ...textMessage("past"),
              createdAt: new Date("2000-01-01T00:00:00.000Z"),
            },
            null,
          );
          await session.appendMessage(
            {
              ...textMessage("child-old"),
              createdAt: new Date("1990-01-01T00:00:00.000Z"),
            },
            "future",
          );
          await session.appendMessage(
            {
              ...textMessage("child-new"),
              createdAt: new Date("1980-01-01T00:00:00.000Z"),
            },
            "future",
          );
          expect((await session.getLatestLeaf())?.id).toBe("child-new");
          expect(ids(await session.getBranches("future"))).toEqual([
            "child-old",
            "child-new",
          ]);
        },
      );

      suite.it("counts the stored rows on a path", async ({ open }) => {
        const session = open();
        await build(session, chain(5), tree({ x: {} }, { under: "m2" }));
        expect(await session.getPathLength()).toBe(3);
        expect(await session.getPathLength("m5")).toBe(5);
        expect(await session.getPathLength("m3")).toBe(3);
      });

      suite.it("keeps every root of a forest readable", async ({ open }) => {
        const session = open();
        await build(session, chain(2, "a"), chain(2, "b"), chain(2, "c"));
        expect(ids(await session.getHistory())).toEqual(["c1", "c2"]);
        expect(ids(await session.getHistory("a2"))).toEqual(["a1", "a2"]);
        expect(ids(await session.getHistory("b2"))).toEqual(["b1", "b2"]);
      });
    });

    suite.it(
      `reads a path of ${DEEP_PATH_LENGTH} messages without a depth cap (both layers)`,
      async ({ provider, session }) => {
        const raw = provider();
        // The chain is written in batches: `importRecords` where the provider has it (one
        // statement per batch; 10,010 single appends over a network took 12-30 s on PostgreSQL,
        // past the test's timeout on a loaded machine), else `writeMessages`. Reading is what is
        // tested.
        let parentId: string | null = null;
        const at = new Date("2024-01-01T00:00:00.000Z").getTime();
        for (let from = 1; from <= DEEP_PATH_LENGTH; from += DEEP_BATCH) {
          const batch = Array.from(
            { length: Math.min(DEEP_BATCH, DEEP_PATH_LENGTH - from + 1) },
            (_, offset) => textMessage(`m${from + offset}`, "x"),
          );
          if (raw.importRecords)
            await raw.importRecords({
              messages: batch.map((message, offset) => ({
                message,
                parentId: offset === 0 ? parentId : batch[offset - 1]!.id,
                createdAt: new Date(at + from + offset).toISOString(),
              })),
              compactions: [],
            });
          else
            await raw.writeMessages(
              batch.map((message) => ({ message })),
              { parentId },
            );
          parentId = batch.at(-1)!.id;
        }
        const rawHistory = await raw.getHistory();
        expect(rawHistory).toHaveLength(DEEP_PATH_LENGTH);
        expect(rawHistory[0]?.id).toBe("m1");
        expect(await raw.getPathLength()).toBe(DEEP_PATH_LENGTH);
        const history = await session().getHistory();
        expect(history).toHaveLength(DEEP_PATH_LENGTH);
        expect(history[0]?.id).toBe("m1");
        expect(history.at(-1)?.id).toBe(`m${DEEP_PATH_LENGTH}`);
        expect(await session().getPathLength()).toBe(DEEP_PATH_LENGTH);
        // An overlay anchored at the far root still applies (docs/behavior/differences.md item 1).
        const overlay = await raw.addCompaction("deep summary", "m1", "m2");
        const compacted = await session().getHistory();
        expect(compacted).toHaveLength(DEEP_PATH_LENGTH - 1);
        expect(compacted[0]?.id).toBe(`compaction_${overlay.id}`);
      },
    );
  });
}
