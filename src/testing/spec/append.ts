import type { SessionMessage } from "../../session/contracts/types.js";
import {
  appendRaw,
  build,
  chain,
  ids,
  textMessage,
  tree,
} from "../fixtures.js";
import { eachLayer, type Suite } from "../suite.js";

/** Appending: the tree, parents, idempotency, updates (docs/behavior/messages-and-tree.md, docs/behavior/storage.md). */
export function appendSpec(suite: Suite): void {
  const { expect } = suite;
  suite.describe("append", () => {
    eachLayer(suite, (suite) => {
      suite.it("appends a first message as a root", async ({ open }) => {
        const session = open();
        await session.appendMessage(textMessage("m1", "hello"));
        const stored = await session.getMessage("m1");
        expect(stored?.id).toBe("m1");
        expect(stored?.role).toBe("user");
        expect(stored?.parts).toEqual([{ type: "text", text: "hello" }]);
        expect(ids(await session.getHistory())).toEqual(["m1"]);
        expect((await session.getLatestLeaf())?.id).toBe("m1");
      });

      suite.it(
        "auto-parents a message without parentId to the latest leaf",
        async ({ open }) => {
          const session = open();
          for (const id of ["m1", "m2", "m3"])
            await session.appendMessage(textMessage(id));
          expect(ids(await session.getHistory())).toEqual(["m1", "m2", "m3"]);
          expect(ids(await session.getBranches("m1"))).toEqual(["m2"]);
          expect(ids(await session.getBranches("m2"))).toEqual(["m3"]);
        },
      );

      suite.it(
        "auto-parents after a branch append to the new branch tip",
        async ({ open }) => {
          const session = open();
          await build(session, tree({ r: { a: { b: {} } } }));
          await session.appendMessage(textMessage("x"), "r");
          await session.appendMessage(textMessage("y"));
          expect(ids(await session.getHistory())).toEqual(["r", "x", "y"]);
        },
      );

      suite.it(
        "starts a new root with parentId null even when the session has messages",
        async ({ open }) => {
          const session = open();
          await build(session, chain(2));
          await session.appendMessage(textMessage("root2"), null);
          expect(ids(await session.getHistory())).toEqual(["root2"]);
          expect(ids(await session.getHistory("m2"))).toEqual(["m1", "m2"]);
          expect((await session.getLatestLeaf())?.id).toBe("root2");
          expect(await session.getPathLength()).toBe(1);
        },
      );

      suite.it(
        "counts the stored messages of every branch",
        async ({ open }) => {
          const session = open();
          expect(await session.countMessages()).toBe(0);
          await build(session, tree({ r: { a: { b: {}, c: {} } } }));
          await session.appendMessage(textMessage("r2"), null);
          expect(await session.countMessages()).toBe(5);
          await session.deleteMessages(["c"]);
          expect(await session.countMessages()).toBe(4);
        },
        // Without countMessages() the count is the export's length.
        { requires: { snapshots: true } },
      );

      suite.it(
        "creates a sibling branch that becomes the active branch",
        async ({ open }) => {
          const session = open();
          await build(session, tree({ r: { a: { b: {} } } }));
          await session.appendMessage(textMessage("c"), "a");
          expect(ids(await session.getHistory())).toEqual(["r", "a", "c"]);
          expect(ids(await session.getHistory("b"))).toEqual(["r", "a", "b"]);
          expect(ids(await session.getBranches("a"))).toEqual(["b", "c"]);
        },
      );

      suite.it(
        "lists branches in insertion order, not id order",
        async ({ open }) => {
          const session = open();
          await build(session, tree({ r: { zeta: {}, alpha: {}, mid: {} } }));
          expect(ids(await session.getBranches("r"))).toEqual([
            "zeta",
            "alpha",
            "mid",
          ]);
          expect(await session.getBranches("mid")).toEqual([]);
          expect(await session.getBranches("unknown")).toEqual([]);
        },
      );

      suite.it(
        "stores a message whose parent is unknown as a root",
        async ({ open }) => {
          const session = open();
          await build(session, chain(2));
          await session.appendMessage(textMessage("x"), "missing");
          expect(ids(await session.getHistory("x"))).toEqual(["x"]);
          expect(await session.getPathLength("x")).toBe(1);
          expect((await session.getLatestLeaf())?.id).toBe("x");
        },
      );

      suite.it(
        "stores a message whose parent exists only in another session as a root",
        async ({ open }) => {
          const other = open("b");
          await other.appendMessage(textMessage("p"));
          const session = open("a");
          await session.appendMessage(textMessage("x"), "p");
          expect(ids(await session.getHistory("x"))).toEqual(["x"]);
          expect(await session.getMessage("p")).toBeNull();
          expect(ids(await other.getHistory())).toEqual(["p"]);
          expect(await other.getBranches("p")).toEqual([]);
        },
      );

      suite.it(
        "ignores a second append of an existing id: first write wins",
        async ({ open }) => {
          const session = open();
          await session.appendMessage(textMessage("m1", "first"));
          await session.appendMessage(textMessage("m2"));
          await session.appendMessage(textMessage("m1", "second"), null);
          await session.appendMessage(textMessage("m1", "third"), "m2");
          expect((await session.getMessage("m1"))?.parts).toEqual([
            { type: "text", text: "first" },
          ]);
          expect(ids(await session.getHistory())).toEqual(["m1", "m2"]);
          expect((await session.getLatestLeaf())?.id).toBe("m2");
          expect(await session.getBranches("m2")).toEqual([]);
        },
      );

      suite.it(
        "sees writes made through another object for the same session",
        async ({ open }) => {
          const first = open("a");
          const second = open("a");
          await first.appendMessage(textMessage("m1"));
          await second.appendMessage(textMessage("m2"));
          await first.appendMessage(textMessage("m3"));
          expect(ids(await second.getHistory())).toEqual(["m1", "m2", "m3"]);
          await second.deleteMessages(["m3"]);
          expect((await first.getLatestLeaf())?.id).toBe("m2");
          await first.appendMessage(textMessage("m4"));
          expect(ids(await second.getHistory())).toEqual(["m1", "m2", "m4"]);
        },
      );

      suite.it(
        "keeps message ids unique per session, not per store",
        async ({ open }) => {
          const a = open("a");
          const b = open("b");
          await a.appendMessage(textMessage("m1", "in a"));
          await b.appendMessage(textMessage("m1", "in b"));
          expect((await a.getMessage("m1"))?.parts[0]?.text).toBe("in a");
          expect((await b.getMessage("m1"))?.parts[0]?.text).toBe("in b");
          expect(ids(await b.getHistory())).toEqual(["m1"]);
        },
      );

      suite.it(
        "returns AI SDK UI messages with every field preserved",
        async ({ open }) => {
          const session = open();
          const message = uiMessage();
          await session.appendMessage(message);
          expect(json(await session.getMessage("ui1"))).toEqual(json(message));
          expect(json((await session.getHistory())[0])).toEqual(json(message));
        },
      );

      suite.it(
        "isolates stored messages from later mutation of the caller's objects",
        async ({ open }) => {
          const session = open();
          const message = textMessage("m1", "original");
          await session.appendMessage(message);
          message.parts[0]!.text = "mutated after append";
          const read = await session.getMessage("m1");
          read!.parts[0]!.text = "mutated after read";
          expect((await session.getMessage("m1"))?.parts[0]?.text).toBe(
            "original",
          );
          expect((await session.getHistory())[0]?.parts[0]?.text).toBe(
            "original",
          );
        },
      );

      suite.it(
        "replaces content and role on update, keeping parent and order",
        async ({ open }) => {
          const session = open();
          await build(session, chain(3));
          await session.updateMessage({
            id: "m2",
            role: "system",
            parts: [{ type: "text", text: "edited" }],
          });
          const updated = await session.getMessage("m2");
          expect(updated?.role).toBe("system");
          expect(updated?.parts).toEqual([{ type: "text", text: "edited" }]);
          expect(ids(await session.getHistory())).toEqual(["m1", "m2", "m3"]);
          expect((await session.getLatestLeaf())?.id).toBe("m3");
          expect(ids(await session.getBranches("m2"))).toEqual(["m3"]);
        },
      );

      suite.it(
        "does not move a leaf or change the latest leaf on update",
        async ({ open }) => {
          const session = open();
          await build(session, tree({ r: { a: {}, b: {} } }));
          await session.updateMessage(textMessage("a", "edited"));
          expect((await session.getLatestLeaf())?.id).toBe("b");
          expect(ids(await session.getBranches("r"))).toEqual(["a", "b"]);
        },
      );

      suite.it("ignores an update of an unknown id", async ({ open }) => {
        const session = open();
        await build(session, chain(2));
        await session.updateMessage(textMessage("ghost", "phantom"));
        expect(await session.getMessage("ghost")).toBeNull();
        expect(ids(await session.getHistory())).toEqual(["m1", "m2"]);
        expect(await session.getPathLength()).toBe(2);
      });

      suite.it("updates only the message of this session", async ({ open }) => {
        const a = open("a");
        const b = open("b");
        await a.appendMessage(textMessage("m1", "in a"));
        await b.appendMessage(textMessage("m1", "in b"));
        await a.updateMessage(textMessage("m1", "edited in a"));
        expect((await b.getMessage("m1"))?.parts[0]?.text).toBe("in b");
      });
    });

    suite
      .withLayer("provider")
      .it(
        "returns false from the provider for a duplicate append",
        async ({ provider }) => {
          const store = provider();
          const first = await appendRaw(store, textMessage("m1"));
          const second = await appendRaw(store, textMessage("m1", "again"));
          expect(first === false).toBe(false);
          expect(second).toBe(false);
        },
      );
  });
}

// --- Internal helpers ---

function json(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** An AI SDK v5 `UIMessage` with metadata and static, dynamic and provider-executed tool parts. */
function uiMessage(): SessionMessage {
  return {
    id: "ui1",
    role: "assistant",
    metadata: { model: "gpt-x", usage: { inputTokens: 12, outputTokens: 3 } },
    parts: [
      { type: "step-start" },
      {
        type: "reasoning",
        text: "thinking",
        providerMetadata: { a: { b: 1 } },
      },
      {
        type: "tool-weather",
        toolCallId: "call-1",
        state: "output-available",
        input: { city: "Oslo" },
        output: { temperature: -3, unit: "C" },
        providerExecuted: true,
      },
      {
        type: "dynamic-tool",
        toolName: "lookup",
        toolCallId: "call-2",
        state: "output-error",
        input: { q: 1 },
        errorText: "timeout",
      },
      { type: "data-chart", id: "chart-1", data: { points: [1, 2, 3] } },
      { type: "text", text: "It is cold.", state: "done" },
    ],
  };
}
