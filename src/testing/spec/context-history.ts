import { Session } from "../../session/facade/session.js";
import { caught, messageOf, summarizeError } from "../helpers.js";
import type { Suite } from "../suite.js";
import { type ToolSet, text } from "./context-support.js";

export function contextHistorySpec(rootSuite: Suite): void {
  const suite = rootSuite.withLayer("session");
  const { expect } = suite;
  const requires = { contextBlocks: true } as const;

  suite.describe("block history", () => {
    suite.it(
      "records every write with its source and previous content, durably",
      async ({ provider }) => {
        const session = Session.create(provider("a")).withContext("memory");
        await session.replaceContextBlock("memory", "one");
        await session.appendContextBlock("memory", "two");
        const tools = (await session.tools()) as ToolSet;
        await tools.set_context!.execute(
          { label: "memory", content: "three" },
          { toolCallId: "call-9" },
        );
        const restarted = Session.create(provider("a")).withContext("memory");
        const history = await restarted.getContextBlockHistory("memory");
        expect(
          history.map(
            ({ version, content, previousContent, source, toolCallId }) => ({
              version,
              content,
              previousContent,
              source,
              toolCallId,
            }),
          ),
        ).toEqual([
          {
            version: 1,
            content: "one",
            previousContent: "",
            source: "api",
            toolCallId: undefined,
          },
          {
            version: 2,
            content: "one\ntwo",
            previousContent: "one",
            source: "api",
            toolCallId: undefined,
          },
          {
            version: 3,
            content: "three",
            previousContent: "one\ntwo",
            source: "tool",
            toolCallId: "call-9",
          },
        ]);
        expect(
          history.every((entry) =>
            /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(entry.at),
          ),
        ).toBe(true);
        expect(
          await Session.create(provider("b"))
            .withContext("memory")
            .getContextBlockHistory("memory"),
        ).toEqual([]);
      },
      { requires },
    );

    suite.it(
      "reverts to a version with the replace rules and records the revert",
      async ({ provider }) => {
        const session = Session.create(provider("a")).withContext("memory", {
          maxTokens: 5,
        });
        await session.replaceContextBlock("memory", "first");
        await session.replaceContextBlock("memory", "second");
        const reverted = await session.revertContextBlock("memory", 1);
        expect(reverted.content).toBe("first");
        const history = await session.getContextBlockHistory("memory");
        expect(
          history.map((entry) => [entry.version, entry.source, entry.content]),
        ).toEqual([
          [1, "api", "first"],
          [2, "api", "second"],
          [3, "revert", "first"],
        ]);
        const error = await caught(() =>
          session.revertContextBlock("memory", 9),
        );
        expect({
          code: summarizeError(error).code,
          message: messageOf(error),
        }).toEqual({
          code: "BLOCK_VERSION_NOT_FOUND",
          message: 'Block "memory" has no version 9',
        });
      },
      { requires },
    );
  });

  suite.describe("status events", () => {
    suite.it(
      "onStatus hears idle after every write and can unsubscribe",
      async ({ provider }) => {
        const session = Session.create(provider("a"));
        const phases: string[] = [];
        const stop = session.onStatus((event) => {
          phases.push("phase" in event ? event.phase : event.type);
        });
        await session.appendMessage(text("m1", "hi"));
        await session.appendMessage(text("m1", "duplicate"));
        await session.updateMessage(text("m1", "edited"));
        await session.deleteMessages(["nope"]);
        await session.clearMessages();
        stop();
        await session.appendMessage(text("m2", "unheard"));
        expect(phases).toEqual(["idle", "idle", "idle", "idle", "idle"]);
      },
      { requires },
    );
  });
}
