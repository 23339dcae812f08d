import { InMemoryAuditSink } from "../../session/index.js";
import { Session } from "../../session/facade/session.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import type { ImportMessageOptions } from "../../session/facade/session-import.js";
import { ids, textMessage } from "../fixtures.js";
import { caught, summarizeError } from "../helpers.js";
import type { Suite } from "../suite.js";

const LONG_AGO = "2021-03-04T05:06:07.089Z";

/**
 * `session.importMessage()` (verbatim historical writes) and `session.upsertMessage()` through
 * the Session on every backend (docs/behavior/messages-and-tree.md).
 */
export function importMessageSpec(rootSuite: Suite): void {
  const suite = rootSuite.withLayer("session");
  const { expect } = suite;

  suite.describe("importMessage and upsertMessage", () => {
    suite.it(
      "imports under the explicit parent with the given time, kept in createdAt and the snapshot",
      async ({ provider, session }) => {
        const running = session();
        expect(
          await running.importMessage(textMessage("q", "question"), {
            parentId: null,
            createdAt: new Date(LONG_AGO),
          }),
        ).toBe(true);
        expect(
          await running.importMessage(textMessage("a", "answer", "assistant"), {
            parentId: "q",
            createdAt: "2021-03-04T05:07:00.000Z",
          }),
        ).toBe(true);
        expect(ids(await running.getHistory())).toEqual(["q", "a"]);
        const stored = await running.getMessage("q");
        expect(stored?.createdAt).toEqual(new Date(LONG_AGO));
        expect(stored?.parts).toEqual([{ type: "text", text: "question" }]);
        // Without importRecords() the row's time is the write time; createdAt above still holds.
        if (provider("a").importRecords && provider("a").exportMessages) {
          const snapshot = await running.exportSnapshot();
          const records = snapshot.messages.map((record) => ({
            id: record.message.id,
            parentId: record.parentId,
            createdAt: record.createdAt,
          }));
          expect(records).toEqual([
            { id: "q", parentId: null, createdAt: LONG_AGO },
            { id: "a", parentId: "q", createdAt: "2021-03-04T05:07:00.000Z" },
          ]);
        }
      },
    );

    suite.it(
      "is idempotent by id: an existing id returns false and stays as it was",
      async ({ session }) => {
        const running = session();
        await running.appendMessage(textMessage("m1", "first"));
        const options = { parentId: null, createdAt: LONG_AGO };
        expect(
          await running.importMessage(textMessage("m1", "second"), options),
        ).toBe(false);
        expect(await running.importMessage(textMessage("m2"), options)).toBe(
          true,
        );
        expect(await running.importMessage(textMessage("m2"), options)).toBe(
          false,
        );
        expect((await running.getMessage("m1"))?.parts).toEqual([
          { type: "text", text: "first" },
        ]);
        expect(await running.getPathLength("m2")).toBe(1);
      },
    );

    suite.it(
      "requires parentId and a valid createdAt (INVALID_ARGUMENT), writing nothing",
      async ({ session }) => {
        const running = session();
        const invalid: unknown[] = [
          undefined,
          { createdAt: LONG_AGO },
          { parentId: undefined, createdAt: LONG_AGO },
          { parentId: 5, createdAt: LONG_AGO },
          { parentId: null },
          { parentId: null, createdAt: "not a date" },
          { parentId: null, createdAt: new Date(Number.NaN) },
          { parentId: null, createdAt: 1234 },
          { parentId: null, createdAt: LONG_AGO, reattach: "m0" },
          { parentId: null, createdAt: LONG_AGO, reattach: [""] },
        ];
        for (const options of invalid) {
          const error = await caught(() =>
            running.importMessage(
              textMessage("m1"),
              options as ImportMessageOptions,
            ),
          );
          expect(summarizeError(error)).toEqual({
            kind: "TypeError",
            code: "INVALID_ARGUMENT",
            marked: true,
          });
        }
        const malformed = await caught(() =>
          running.importMessage({ id: "" } as SessionMessage, {
            parentId: null,
            createdAt: LONG_AGO,
          }),
        );
        expect(summarizeError(malformed).code).toBe("INVALID_MESSAGE");
        expect(await running.getHistory()).toEqual([]);
      },
    );

    suite.it(
      "reattach: a stored root goes under the message imported for it, in the same write; a message no longer a root, and one the move would make its own ancestor, stay where they are",
      async ({ provider, session }) => {
        const running = session();
        const at = { createdAt: LONG_AGO };
        // A fragment's orphan (o1, with its child o2), stored as a root before its parent.
        await running.importMessage(textMessage("o1"), {
          parentId: null,
          ...at,
        });
        await running.importMessage(textMessage("o2"), {
          parentId: "o1",
          ...at,
        });
        await running.importMessage(textMessage("k"), {
          parentId: null,
          ...at,
        });
        await running.importMessage(textMessage("k2"), {
          parentId: "k",
          ...at,
        });
        expect(
          await running.importMessage(textMessage("p"), {
            parentId: "k2",
            ...at,
            reattach: ["o1", "o2", "k", "absent"],
          }),
        ).toBe(true);
        if (provider("a").importReattaches === true) {
          expect(ids(await running.getHistory("o2"))).toEqual([
            "k",
            "k2",
            "p",
            "o1",
            "o2",
          ]);
          expect(ids(await running.getBranches("p"))).toEqual(["o1"]);
        } else
          expect(ids(await running.getHistory("o2"))).toEqual(["o1", "o2"]);
        // k, an ancestor of p, is still the root; nothing else moved.
        expect(ids(await running.getHistory("p"))).toEqual(["k", "k2", "p"]);
        expect(ids(await running.getBranches("o1"))).toEqual(["o2"]);
        // A message already stored writes nothing, and moves nothing.
        await running.importMessage(textMessage("r"), {
          parentId: null,
          ...at,
        });
        expect(
          await running.importMessage(textMessage("p"), {
            parentId: "k2",
            ...at,
            reattach: ["r"],
          }),
        ).toBe(false);
        expect(await running.getPathLength("r")).toBe(1);
        expect(ids(await running.getBranches("p"))).toEqual(
          provider("a").importReattaches === true ? ["o1"] : [],
        );
      },
    );

    suite.it(
      "never auto-compacts, and is audited as an import",
      async ({ provider }) => {
        let calls = 0;
        const sink = new InMemoryAuditSink();
        const running = Session.create(provider("a"))
          .onCompaction(async () => {
            calls++;
            return null;
          })
          .compactAfter(0)
          .withAudit(sink);
        let parentId: string | null = null;
        for (let index = 1; index <= 6; index++) {
          const id = `m${index}`;
          await running.importMessage(
            textMessage(id, "some words ".repeat(50)),
            { parentId, createdAt: LONG_AGO },
          );
          parentId = id;
        }
        expect(calls).toBe(0);
        expect(await running.getCompactions()).toEqual([]);
        await running.flushAudit();
        const events = sink.forSession("a");
        expect(events.map((event) => event.type)).toEqual(
          Array.from({ length: 6 }, () => "import"),
        );
        expect(
          (events[1]!.payload as { parentId: string | null }).parentId,
        ).toBe("m1");
      },
    );

    suite.it(
      "keeps the row-size limit, as appendMessage does",
      async ({ provider }) => {
        const running = new Session(provider("a"), { maxRowBytes: 2_000 });
        const warn = console.warn;
        console.warn = () => undefined;
        try {
          await running.importMessage(textMessage("big", "y".repeat(10_000)), {
            parentId: null,
            createdAt: LONG_AGO,
          });
        } finally {
          console.warn = warn;
        }
        const stored = await running.getMessage("big");
        expect(JSON.stringify(stored).length <= 2_000).toBe(true);
      },
    );

    suite.it(
      "upsertMessage inserts when absent and updates when present",
      async ({ session }) => {
        const running = session();
        expect(await running.upsertMessage(textMessage("r", "root"))).toBe(
          "inserted",
        );
        expect(await running.upsertMessage(textMessage("a", "v1"), "r")).toBe(
          "inserted",
        );
        expect(await running.upsertMessage(textMessage("b"), "r")).toBe(
          "inserted",
        );
        // The parent given to an update is ignored: the message keeps its place.
        expect(await running.upsertMessage(textMessage("a", "v2"), null)).toBe(
          "updated",
        );
        expect((await running.getMessage("a"))?.parts).toEqual([
          { type: "text", text: "v2" },
        ]);
        expect(ids(await running.getHistory("a"))).toEqual(["r", "a"]);
        expect(ids(await running.getHistory())).toEqual(["r", "b"]);
      },
    );
  });
}
