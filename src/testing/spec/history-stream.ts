import type { SessionProvider } from "../../session/contracts/provider.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import type { HistoryStreamOptions } from "../../session/facade/session-history.js";
import type { Session } from "../../session/facade/session.js";
import {
  appendRaw,
  build,
  chain,
  ids,
  textMessage,
  tree,
} from "../fixtures.js";
import { caught, summarizeError, utf8Bytes } from "../helpers.js";
import { withoutOptionalMembers } from "../subject.js";
import type { Suite } from "../suite.js";

/** Longer than the reference's 10,000-step recursion cap, as in the history spec. */
const DEEP_PATH_LENGTH = 10_010;

/**
 * Streamed history (docs/behavior/history.md): `session.history()` and `historyBatches()` give
 * the messages of `getHistory()`, window by window, on every backend, and the provider
 * primitives they read through (`getPathIds`, `getMessagesByIds`) when the backend has them.
 */
export function historyStreamSpec(rootSuite: Suite): void {
  const suite = rootSuite.withLayer("session");
  const { expect } = suite;

  /** `history()` root → leaf and leaf → root against `getHistory()`, at several batch sizes. */
  const expectSameAsGetHistory = async (
    session: Session,
    leafId?: string,
  ): Promise<void> => {
    const expected = await session.getHistory(leafId);
    for (const batchSize of [1, 2, 3, 50]) {
      expect(await collect(session.history({ leafId, batchSize }))).toEqual(
        expected,
      );
      expect(
        await collect(
          session.history({ leafId, batchSize, newestFirst: true }),
        ),
      ).toEqual([...expected].reverse());
    }
  };

  suite.describe("streamed history", () => {
    suite.it("yields nothing for an empty session", async ({ session }) => {
      expect(await collect(session().history())).toEqual([]);
      expect(await collect(session().historyBatches())).toEqual([]);
    });

    suite.it(
      "streams getHistory() with overlays that straddle window edges",
      async ({ session }) => {
        const running = session();
        await build(running, chain(12));
        await expectSameAsGetHistory(running);
        // m2..m5 crosses the edges of windows of 2 and 3 rows; m7..m8 is superseded by m7..m10.
        await running.addCompaction("first", "m2", "m5");
        await running.addCompaction("older", "m7", "m8");
        await running.addCompaction("newer", "m7", "m10");
        await expectSameAsGetHistory(running);
        // A wider overlay that covers earlier ones, as getHistory() reads it.
        await running.addCompaction("outer", "m1", "m11");
        await expectSameAsGetHistory(running);
      },
    );

    suite.it(
      "streams the branch of leafId, and the active one by default",
      async ({ session }) => {
        const running = session();
        await build(
          running,
          tree({ r: { a: { b: { b1: {}, b2: {} }, c: { c1: {}, c2: {} } } } }),
        );
        await running.addCompaction("on b", "a", "b1");
        await running.addCompaction("on c", "c", "c2");
        await expectSameAsGetHistory(running, "b2");
        await expectSameAsGetHistory(running, "c2");
        expect(ids(await collect(running.history({ leafId: "b2" })))).toEqual(
          ids(await running.getHistory("b2")),
        );
        await running.switchBranch("b2");
        expect(await collect(running.history())).toEqual(
          await running.getHistory(),
        );
        expect(ids(await collect(running.history())).at(-1)).toBe("b2");
        expect(await collect(running.history({ leafId: "unknown" }))).toEqual(
          [],
        );
      },
    );

    suite.it(
      "keeps every batch within batchSize and maxBatchBytes; an oversized message comes alone",
      async ({ session }) => {
        const running = session();
        const sizes = [100, 150, 5_000, 80, 120, 90, 300, 60];
        let parentId: string | null = null;
        for (const [index, size] of sizes.entries()) {
          const id = `m${index + 1}`;
          await running.appendMessage(
            textMessage(id, "x".repeat(size)),
            parentId,
          );
          parentId = id;
        }
        const expected = await running.getHistory();
        for (const options of [
          { batchSize: 3, maxBatchBytes: 600 },
          { batchSize: 50, maxBatchBytes: 400 },
          { batchSize: 2, maxBatchBytes: 10_000 },
        ]) {
          const batches = await collect(running.historyBatches(options));
          expect(batches.flat()).toEqual(expected);
          for (const batch of batches) {
            expect(batch.length).toBeGreaterThan(0);
            expect(batch.length <= options.batchSize).toBe(true);
            const bytes = batch.reduce(
              (sum, message) => sum + size(message),
              0,
            );
            expect(batch.length === 1 || bytes <= options.maxBatchBytes).toBe(
              true,
            );
          }
          const big = batches.find((batch) => ids(batch).includes("m3"))!;
          if (options.maxBatchBytes < 5_000) expect(ids(big)).toEqual(["m3"]);
        }
      },
    );

    suite.it(
      "streams large messages and inline attachments whole, as getHistory() reads them",
      async ({ session }) => {
        const running = session().withRowSizeLimit(false);
        await running.appendMessage({
          id: "file",
          role: "user",
          parts: [
            { type: "text", text: "see the file" },
            {
              type: "file",
              mediaType: "image/png",
              url: "data:image/png;base64,AQID",
            },
          ],
        });
        await running.appendMessage(
          textMessage("big", "large ".repeat(500_000), "assistant"),
        );
        await running.appendMessage(textMessage("after"));
        const expected = await running.getHistory();
        expect(await collect(running.history({ batchSize: 1 }))).toEqual(
          expected,
        );
        const batches = await collect(
          running.historyBatches({ maxBatchBytes: 1_000_000 }),
        );
        expect(batches.map(ids)).toEqual([["file"], ["big"], ["after"]]);
      },
    );

    suite.it(
      "stops between windows when the signal aborts, with its reason",
      async ({ session }) => {
        const running = session();
        await build(running, chain(9));
        const controller = new AbortController();
        const reason = new Error("stop reading");
        const seen: string[] = [];
        const error = await caught(async () => {
          for await (const batch of running.historyBatches({
            batchSize: 3,
            signal: controller.signal,
          })) {
            seen.push(...ids(batch));
            controller.abort(reason);
          }
        });
        expect(error).toBe(reason);
        expect(seen).toEqual(["m1", "m2", "m3"]);
        const early = await caught(() =>
          collect(running.history({ signal: AbortSignal.abort() })),
        );
        expect((early as Error | undefined)?.name).toBe("AbortError");
      },
    );

    suite.it(
      "stops early with newestFirst, reading from the leaf",
      async ({ session }) => {
        const running = session();
        await build(running, chain(20));
        const newest: string[] = [];
        for await (const message of running.history({
          newestFirst: true,
          batchSize: 4,
        })) {
          newest.push(message.id);
          if (newest.length === 3) break;
        }
        expect(newest).toEqual(["m20", "m19", "m18"]);
      },
    );

    suite.it(
      "rejects invalid options at the call with INVALID_ARGUMENT",
      async ({ session }) => {
        const running = session();
        const invalid: unknown[] = [
          { batchSize: 0 },
          { batchSize: -1 },
          { batchSize: 1.5 },
          { batchSize: "2" },
          { maxBatchBytes: 0 },
          { maxBatchBytes: Number.NaN },
          { newestFirst: "yes" },
          { leafId: 7 },
          { signal: {} },
          "options",
        ];
        for (const options of invalid) {
          const error = await caught(() =>
            running.history(options as HistoryStreamOptions),
          );
          expect(summarizeError(error)).toEqual({
            kind: "TypeError",
            code: "INVALID_ARGUMENT",
            marked: true,
          });
          expect(
            summarizeError(
              await caught(() =>
                running.historyBatches(options as HistoryStreamOptions),
              ),
            ).code,
          ).toBe("INVALID_ARGUMENT");
        }
      },
    );

    suite.it(
      "streams the same history through a provider without the window primitives",
      async ({ provider, session }) => {
        const running = session("a", withoutOptionalMembers(provider("a")));
        await build(running, chain(7));
        await running.addCompaction("s", "m2", "m4");
        await expectSameAsGetHistory(running);
        const batches = await collect(running.historyBatches({ batchSize: 2 }));
        expect(batches.map((batch) => batch.length)).toEqual([2, 2, 1]);
      },
    );

    suite.it(
      "reads path ids and sizes, and messages by id in order, when the provider has them",
      async ({ provider }) => {
        const raw = provider("a");
        if (!raw.getPathIds || !raw.getMessagesByIds) return;
        await build(raw, tree({ r: { a: { b: {} }, c: {} } }));
        const path = await raw.getPathIds("b");
        expect(path.map((entry) => entry.id)).toEqual(["r", "a", "b"]);
        for (const entry of path) {
          const message = (await raw.getMessage(entry.id))!;
          expect(entry.bytes).toBe(size(message));
        }
        expect(ids(await raw.getHistory())).toEqual(["r", "c"]);
        expect((await raw.getPathIds()).map((entry) => entry.id)).toEqual([
          "r",
          "c",
        ]);
        expect(await raw.getPathIds("unknown")).toEqual([]);
        const fetched = await raw.getMessagesByIds(["b", "nope", "r"]);
        expect(fetched).toEqual([
          await raw.getMessage("b"),
          null,
          await raw.getMessage("r"),
        ]);
        expect(await raw.getMessagesByIds([])).toEqual([]);
      },
    );

    suite.it(
      "reads the path's id set when the provider has it, current after every write",
      async ({ provider }) => {
        const raw = provider("a");
        if (!raw.getPathIdSet) return;
        const sorted = async (leafId?: string) =>
          [...(await raw.getPathIdSet!(leafId))].sort();
        await build(raw, tree({ r: { a: { b: {} }, c: {} } }));
        expect(await sorted("b")).toEqual(["a", "b", "r"]);
        expect(await sorted()).toEqual(["c", "r"]);
        expect(await sorted()).toEqual(["c", "r"]);
        await appendRaw(raw, textMessage("d", "d"));
        expect(await sorted()).toEqual(["c", "d", "r"]);
        await appendRaw(raw, textMessage("e", "e"), "b");
        expect(await sorted()).toEqual(["a", "b", "e", "r"]);
        await raw.deleteMessages(["a"]);
        expect(await sorted()).toEqual(["b", "e", "r"]);
        expect(await sorted("unknown")).toEqual([]);
        // The set a caller holds is not one it must copy: reading again gives the same members.
        const held = await raw.getPathIdSet();
        await raw.searchMessages?.("d");
        expect([...(await raw.getPathIdSet())].sort()).toEqual(
          [...held].sort(),
        );
      },
    );

    suite.it(
      `streams a path of ${DEEP_PATH_LENGTH} messages whole, both directions`,
      async ({ provider, session }) => {
        const raw = provider("a");
        await writeChain(raw, DEEP_PATH_LENGTH);
        await raw.addCompaction("deep summary", "m1", "m2");
        const running = session();
        const expected = ids(await running.getHistory());
        expect(ids(await collect(running.history()))).toEqual(expected);
        const newest = ids(
          await collect(running.history({ newestFirst: true, batchSize: 500 })),
        );
        expect(newest).toEqual([...expected].reverse());
      },
    );
  });
}

// --- Internal helpers ---

/**
 * A chain `m1 → … → m<length>`: in one bulk write when the provider can import (the appends are
 * what the deep-path case of the history spec already checks), else appended one by one.
 */
async function writeChain(
  provider: SessionProvider,
  length: number,
): Promise<void> {
  const createdAt = new Date().toISOString();
  const records = Array.from({ length }, (_, index) => ({
    message: textMessage(`m${index + 1}`, "x"),
    parentId: index === 0 ? null : `m${index}`,
    createdAt,
  }));
  if (provider.importRecords) {
    await provider.importRecords({ messages: records, compactions: [] });
    return;
  }
  for (const { message, parentId } of records)
    await appendRaw(provider, message, parentId);
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** The UTF-8 size of a message's stored JSON (its `createdAt`, when a Date, as ISO text). */
function size(message: SessionMessage): number {
  return utf8Bytes(JSON.stringify(message));
}
