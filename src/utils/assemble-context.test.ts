import { describe, expect, it } from "vitest";
import {
  InMemorySessionProvider,
  isArborError,
  Session,
  type SessionMessage,
} from "../session/index.js";
import { assembleContext, NO_MESSAGES_ERROR } from "./assemble-context.js";
import { MISSING_TOOL_RESULT_OUTPUT } from "./compaction/sanitize-tool-pairs.js";
import { keepLastMessages } from "./history-filters.js";

const text = (id: string, role: string, value: string): SessionMessage => ({
  id,
  role,
  parts: [{ type: "text", text: value }],
});

async function sessionWith(
  messages: SessionMessage[],
  configure: (session: Session) => Session = (session) => session,
): Promise<Session> {
  const session = configure(Session.create(new InMemorySessionProvider()));
  for (const message of messages) await session.appendMessage(message);
  return session;
}

describe("assembleContext (docs/behavior/agent-turns.md)", () => {
  it("uses the frozen prompt, and the fallback only when it is empty", async () => {
    const plain = await sessionWith([text("u1", "user", "Hi")]);
    expect(
      await assembleContext(plain, { fallbackSystemPrompt: "Be brief." }),
    ).toEqual({ system: "Be brief.", messages: [text("u1", "user", "Hi")] });
    expect((await assembleContext(plain)).system).toBe("");

    const withSoul = await sessionWith([text("u1", "user", "Hi")], (session) =>
      session.withContext("soul", {
        provider: { get: async () => "You are Arbor." },
      }),
    );
    const { system } = await assembleContext(withSoul, {
      fallbackSystemPrompt: "Be brief.",
    });
    expect(system).toContain("You are Arbor.");
    expect(system).not.toContain("Be brief.");
  });

  it("reads the path to leafId instead of the active branch", async () => {
    const session = await sessionWith([
      text("u1", "user", "Q"),
      text("a1", "assistant", "old"),
    ]);
    await session.appendMessage(text("a2", "assistant", "new"), "u1");
    const ids = async (leafId?: string) =>
      (await assembleContext(session, leafId ? { leafId } : {})).messages.map(
        (message) => message.id,
      );
    expect(await ids()).toEqual(["u1", "a2"]);
    expect(await ids("a1")).toEqual(["u1", "a1"]);
    expect(await ids("u1")).toEqual(["u1"]);
  });

  it("truncates older messages, then filters, then repairs tool pairs", async () => {
    const long = "x".repeat(300);
    const session = await sessionWith([
      text("u1", "user", long),
      {
        id: "a1",
        role: "assistant",
        parts: [
          {
            type: "tool-lookup",
            toolCallId: "c1",
            state: "input-available",
            input: {},
          },
        ],
      },
      text("u2", "user", "second"),
      text("a2", "assistant", "answer"),
    ]);

    const { messages } = await assembleContext(session, {
      truncate: { keepRecent: 2, maxTextChars: 100 },
      filters: [keepLastMessages(3)],
    });

    expect(messages.map((message) => message.id)).toEqual(["a1", "u2", "a2"]);
    expect(messages[0]!.parts[0]).toMatchObject({
      state: "output-available",
      output: MISSING_TOOL_RESULT_OUTPUT,
    });
    const untruncated = await assembleContext(session, { truncate: false });
    expect(untruncated.messages[0]!.parts[0]!.text).toBe(long);
    const truncated = await assembleContext(session, {
      truncate: { keepRecent: 2, maxTextChars: 100 },
    });
    expect(truncated.messages[0]!.parts[0]!.text).toMatch(
      /\.\.\. \[truncated 300 chars\]$/,
    );
    // Stored data is untouched.
    expect((await session.getMessage("u1"))!.parts[0]!.text).toBe(long);
  });

  it("throws EMPTY_CONTEXT with the documented message when there is nothing to send", async () => {
    const session = await sessionWith([]);
    const error = await assembleContext(session).catch(
      (caught: unknown) => caught,
    );
    expect(isArborError(error) && error.code).toBe("EMPTY_CONTEXT");
    expect((error as Error).message).toBe(NO_MESSAGES_ERROR);
    expect(NO_MESSAGES_ERROR).toBe("No messages to send to the model.");
  });

  it("works on any object with freezeSystemPrompt and getHistory", async () => {
    const source = {
      freezeSystemPrompt: async () => "  ",
      getHistory: async () => [text("u1", "user", "Hi")],
    };
    expect(
      await assembleContext(source, { fallbackSystemPrompt: "Fallback." }),
    ).toMatchObject({ system: "Fallback." });
  });

  it("freezes the prompt it sends by default; { freeze: false } writes nothing", async () => {
    const soul = { value: "one", get: async () => soul.value };
    const session = await sessionWith([text("u1", "user", "Hi")], (s) =>
      s.withContext("soul", { provider: soul }).withCachedPrompt(),
    );
    const preview = await assembleContext(session, { freeze: false });
    expect(preview.system).toContain("one");
    expect(await session.readSystemPrompt()).toMatchObject({ frozen: null });

    const sent = await assembleContext(session);
    expect((await session.readSystemPrompt()).frozen).toBe(sent.system);
    soul.value = "two";
    // The preview shows what the next turn sends: the frozen prompt, not the new render.
    expect((await assembleContext(session, { freeze: false })).system).toBe(
      sent.system,
    );
  });

  it("{ freeze: false } on a source without readSystemPrompt is an INVALID_ARGUMENT", async () => {
    const source = {
      freezeSystemPrompt: async () => "x",
      getHistory: async () => [text("u1", "user", "Hi")],
    };
    const error = await assembleContext(source, { freeze: false }).catch(
      (caught: unknown) => caught,
    );
    expect(isArborError(error) && error.code).toBe("INVALID_ARGUMENT");
  });
});
