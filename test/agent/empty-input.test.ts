// Regression: empty user input reached the model. `runTurn` with "" (or whitespace, or no parts)
// stored an empty user message, and every later turn sent it as `content: []`. Now it is rejected
// with INVALID_ARGUMENT before anything is stored; so is an edit with no text.
import { describe, expect, it } from "vitest";
import { SessionAgent, runTurn } from "../../src/agent/index.js";
import { Session } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { scriptedModel, textStep } from "./support/scripted-model.js";

const sqliteSession = () =>
  Session.create(openSqlite(":memory:")).forSession("chat");

describe("empty user input", () => {
  it.each([
    ["an empty string", ""],
    ["whitespace only", " \n\t "],
    ["no parts", { parts: [] }],
    ["only blank text parts", { parts: [{ type: "text", text: "  " }] }],
  ])(
    "runTurn rejects %s with INVALID_ARGUMENT, stores nothing and calls no model",
    async (_name, input) => {
      const session = sqliteSession();
      const model = scriptedModel([textStep("never sent")]);
      await expect(runTurn({ session, model, input })).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
      });
      expect(await session.getHistory()).toEqual([]);
      expect(model.doStreamCalls).toHaveLength(0);
    },
  );

  it("accepts a message whose only part is a file", async () => {
    const session = sqliteSession();
    const model = scriptedModel([textStep("A picture of tea.")]);
    const turn = await runTurn({
      session,
      model,
      input: {
        parts: [
          {
            type: "file",
            mediaType: "image/png",
            url: "data:image/png;base64,iVBORw0KGgo=",
          },
        ],
      },
    });
    expect(turn.text).toBe("A picture of tea.");
  });

  it("editUserMessage with no text is rejected and adds no branch", async () => {
    const session = sqliteSession();
    const model = scriptedModel([textStep("Hello!")]);
    const agent = new SessionAgent({ session, model });
    const turn = await agent.run("Hi");
    for (const content of ["", "   ", []]) {
      await expect(
        agent.editUserMessage(turn.userMessage.id, content),
      ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    }
    expect(await session.getBranches(turn.userMessage.id)).toHaveLength(1);
    expect((await session.getHistory()).map((message) => message.role)).toEqual(
      ["user", "assistant"],
    );
    expect(model.doStreamCalls).toHaveLength(1);
  });
});
