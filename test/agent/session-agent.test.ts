// SessionAgent turns on the real AI SDK (`streamText`, `toUIMessageStream`, `readUIMessageStream`),
// driven by a scripted fake model (`MockLanguageModelV3` from `ai/test`), on in-memory and SQLite
// sessions.
import {
  convertToModelMessages,
  validateUIMessages,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  INTERRUPTED_TOOL_ERROR,
  SessionAgent,
  runTurn,
} from "../../src/agent/index.js";
import {
  InMemoryAuditSink,
  InMemorySessionProvider,
  isArborError,
  Session,
  SessionManager,
  type SessionMessage,
} from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { createCompactFunction } from "../../src/utils/index.js";
import {
  promptText,
  scriptedModel,
  textStep,
  toolStep,
} from "./support/scripted-model.js";

const backends: Array<[string, () => Session]> = [
  ["in-memory", () => Session.create(new InMemorySessionProvider())],
  ["SQLite", () => Session.create(openSqlite(":memory:")).forSession("chat")],
];

function ids(prefix = "id"): () => string {
  let next = 0;
  return () => `${prefix}-${++next}`;
}

function withMemory(session: Session): Session {
  return session.withContext("memory", {
    description: "Facts about the user",
    maxTokens: 200,
  });
}

/** The text of a message's text parts. */
function textOf(message: SessionMessage): string {
  return message.parts
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("");
}

const toolSetContext = (content: string) =>
  toolStep("call-1", "set_context", { label: "memory", content });

describe.each(backends)("SessionAgent on %s", (_name, open) => {
  it("a scripted fake model calls set_context, then answers: the block is written, the transcript holds the tool part then the text", async () => {
    const session = withMemory(open());
    const model = scriptedModel([
      toolSetContext("User likes green tea."),
      textStep("Noted: green tea."),
    ]);
    const agent = new SessionAgent({ session, model, generateId: ids() });

    const turn = await agent.run("I like green tea.");

    expect(turn.status).toBe("completed");
    expect(turn.text).toBe("Noted: green tea.");
    expect(turn.steps).toHaveLength(2);
    expect(turn.finishReason).toBe("stop");
    expect((await session.loadContext())[0]!.content).toBe(
      "User likes green tea.",
    );
    const [user, answer] = await session.getHistory();
    expect(user!.id).toBe("id-1");
    expect(answer!.parts.map((part) => part.type)).toEqual([
      "step-start",
      "tool-set_context",
      "step-start",
      "text",
    ]);
    expect(answer!.parts[1]).toMatchObject({
      toolCallId: "call-1",
      state: "output-available",
      input: { label: "memory", content: "User likes green tea." },
      output: expect.stringMatching(/^Written to memory\./),
    });
    // The tools offered to the model are the session's.
    expect(model.doStreamCalls[0]!.tools?.map((tool) => tool.name)).toEqual([
      "set_context",
    ]);
    // Step 2 saw the tool result; the prompt stayed frozen within the turn.
    expect(promptText(model.doStreamCalls[1]!)).toContain("Written to memory");
    expect(model.doStreamCalls[1]!.prompt[0]).toEqual(
      model.doStreamCalls[0]!.prompt[0],
    );
    // Refreshed after the turn: the next turn's prompt shows the memory write.
    expect(await session.freezeSystemPrompt()).toContain(
      "User likes green tea.",
    );
  });

  it("stores AI SDK UIMessages: generated ids, step-start/reasoning/tool/text parts, metadata with usage", async () => {
    const session = withMemory(open());
    const model = scriptedModel([
      {
        ...toolSetContext("Prefers short answers."),
        chunks: [
          { type: "reasoning-start", id: "r1" },
          { type: "reasoning-delta", id: "r1", delta: "Worth remembering." },
          { type: "reasoning-end", id: "r1" },
          ...toolSetContext("Prefers short answers.").chunks,
        ],
      },
      textStep("OK.", { input: 30, output: 2 }),
    ]);
    const agent = new SessionAgent({ session, model, generateId: ids("m") });

    const turn = await agent.run({
      id: "client-id",
      parts: [{ type: "text", text: "Keep it short." }],
      metadata: { client: "test" },
    });

    const history = await session.getHistory();
    expect(history).toEqual([
      {
        id: "client-id",
        role: "user",
        parts: [{ type: "text", text: "Keep it short." }],
        metadata: { createdAt: expect.any(String), client: "test" },
      },
      {
        id: "m-1",
        role: "assistant",
        parts: [
          { type: "step-start" },
          {
            type: "reasoning",
            id: "r1",
            text: "Worth remembering.",
            state: "done",
          },
          {
            type: "tool-set_context",
            toolCallId: "call-1",
            state: "output-available",
            input: { label: "memory", content: "Prefers short answers." },
            output: expect.stringMatching(/^Written to memory\./),
          },
          { type: "step-start" },
          { type: "text", text: "OK.", state: "done" },
        ],
        metadata: {
          createdAt: expect.any(String),
          model: "scripted-fake-model",
          steps: 2,
          finishReason: "stop",
          usage: { inputTokens: 40, outputTokens: 7, totalTokens: 47 },
        },
      },
    ]);
    expect(turn.assistantMessage).toEqual(history[1]);
    expect(turn.userMessage).toEqual(history[0]);
    expect(turn.usage).toEqual({
      inputTokens: 40,
      outputTokens: 7,
      totalTokens: 47,
      cost: 0,
    });
    // The AI SDK accepts the stored transcript as it is, and can send it back to a model.
    await expect(
      validateUIMessages({ messages: history }),
    ).resolves.toHaveLength(2);
    expect(await convertToModelMessages(history as UIMessage[])).toHaveLength(
      4,
    );
  });

  it("appends the answer when the first step finishes, so a run that dies mid-way leaves its tool calls", async () => {
    const session = withMemory(open());
    const model = scriptedModel([
      toolSetContext("Lives in Lyon."),
      // A provider that ignores the abort signal: the turn still ends.
      {
        chunks: [{ type: "text-start", id: "t" }],
        hang: true,
        ignoreAbort: true,
      },
    ]);
    const controller = new AbortController();
    const agent = new SessionAgent({ session, model, generateId: ids() });

    const running = agent.run("I moved to Lyon.", {
      abortSignal: controller.signal,
    });
    await vi.waitFor(async () => {
      const stored = await session.getMessage("id-2");
      expect(stored?.parts.map((part) => part.type)).toEqual([
        "step-start",
        "tool-set_context",
      ]);
      expect(stored?.metadata).toMatchObject({ steps: 1 });
    });
    controller.abort();
    expect((await running).status).toBe("aborted");
  });

  it("regenerate() answers the same user message again: both answers stay reachable", async () => {
    const session = open();
    const model = scriptedModel([
      textStep("First answer."),
      textStep("Second answer."),
      textStep("Third answer."),
    ]);
    const agent = new SessionAgent({ session, model, generateId: ids() });

    const first = await agent.run("Deploy on Friday?");
    const second = await agent.regenerate(first.userMessage.id);
    const third = await agent.regenerate(); // the active branch's last user message
    const userId = first.userMessage.id;

    expect(
      (await session.getBranches(userId)).map((message) => message.id),
    ).toEqual([
      first.assistantMessage!.id,
      second.assistantMessage!.id,
      third.assistantMessage!.id,
    ]);
    expect((await session.getHistory()).map((message) => message.id)).toEqual([
      userId,
      third.assistantMessage!.id,
    ]);
    expect(
      (await session.getHistory(first.assistantMessage!.id)).map((message) =>
        textOf(message),
      ),
    ).toEqual(["Deploy on Friday?", "First answer."]);
    // A regenerate sends the history up to the user message, not the old answer.
    expect(promptText(model.doStreamCalls[1]!)).not.toContain("First answer.");
    expect(third.userMessage.id).toBe(userId);
  });

  it("regenerate(answerId) answers that answer's user message", async () => {
    const session = open();
    const model = scriptedModel([textStep("One."), textStep("Two.")]);
    const agent = new SessionAgent({ session, model, generateId: ids() });
    const first = await agent.run("Count.");
    const again = await agent.regenerate(first.assistantMessage!.id);
    expect(again.userMessage.id).toBe(first.userMessage.id);
    expect(await session.getBranches(first.userMessage.id)).toHaveLength(2);
  });

  it("editUserMessage() adds a sibling user message (same parent) and answers it", async () => {
    const session = open();
    const model = scriptedModel([
      textStep("A1."),
      textStep("A2."),
      textStep("A3."),
      textStep("A4."),
    ]);
    const agent = new SessionAgent({ session, model, generateId: ids() });
    const one = await agent.run("Q1");
    const two = await agent.run("Q2");

    const edited = await agent.editUserMessage(
      two.userMessage.id,
      "Q2, edited",
    );

    const siblings = await session.getBranches(one.assistantMessage!.id);
    expect(siblings.map((message) => message.id)).toEqual([
      two.userMessage.id,
      edited.userMessage.id,
    ]);
    expect(edited.userMessage.metadata).toMatchObject({
      editOf: two.userMessage.id,
    });
    expect(
      (await session.getHistory()).map((message) => textOf(message)),
    ).toEqual(["Q1", "A1.", "Q2, edited", "A3."]);
    expect(promptText(model.doStreamCalls[2]!)).not.toContain("A2.");
    expect(
      (await session.getHistory(two.assistantMessage!.id)).at(-1)!.id,
    ).toBe(two.assistantMessage!.id);

    // Editing the first message makes a new root.
    const root = await agent.editUserMessage(one.userMessage.id, [
      { type: "text", text: "Q1, edited" },
    ]);
    expect((await session.getHistory()).map((message) => message.id)).toEqual([
      root.userMessage.id,
      root.assistantMessage!.id,
    ]);
  });

  it("editUserMessage() and regenerate() reject unknown ids and wrong roles with typed errors", async () => {
    const session = open();
    const agent = new SessionAgent({
      session,
      model: scriptedModel([textStep("A.")]),
      generateId: ids(),
    });
    const turn = await agent.run("Q");
    await expect(agent.editUserMessage("nope", "x")).rejects.toMatchObject({
      code: "MESSAGE_NOT_FOUND",
    });
    await expect(
      agent.editUserMessage(turn.assistantMessage!.id, "x"),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(agent.regenerate("nope")).rejects.toMatchObject({
      code: "MESSAGE_NOT_FOUND",
    });
  });

  it("an abort while a tool call streams drops that call and keeps the text before it", async () => {
    const session = withMemory(open());
    const model = scriptedModel([
      {
        chunks: [
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "Let me note that." },
          { type: "text-end", id: "t" },
          { type: "tool-input-start", id: "call-1", toolName: "set_context" },
          { type: "tool-input-delta", id: "call-1", delta: '{"label":"mem' },
        ],
        hang: true,
      },
      textStep("Next turn works."),
    ]);
    const controller = new AbortController();
    const agent = new SessionAgent({ session, model, generateId: ids() });

    const turn = await agent.run("Remember: I am left-handed.", {
      abortSignal: controller.signal,
      onChunk: (chunk) => {
        if (chunk.type === "tool-input-delta") controller.abort();
      },
    });

    expect(turn.status).toBe("aborted");
    expect(turn.assistantMessage!.parts).toEqual([
      { type: "step-start" },
      { type: "text", text: "Let me note that.", state: "done" },
    ]);
    expect(turn.assistantMessage!.metadata).toMatchObject({
      aborted: true,
      steps: 0,
    });
    expect(await session.getMessage(turn.assistantMessage!.id)).toEqual(
      turn.assistantMessage,
    );
    expect((await session.loadContext())[0]!.content).toBe("");
    // The transcript stays sendable: the next turn runs on it.
    const next = await agent.run("Hello again.");
    expect(next.text).toBe("Next turn works.");
    expect(promptText(model.doStreamCalls[1]!)).toContain("Let me note that.");
  });

  it("an abort while a tool runs settles the call as output-error; finished steps are kept", async () => {
    const session = withMemory(open());
    const model = scriptedModel([
      toolSetContext("Has a cat."),
      toolStep("call-2", "slow_lookup", { query: "cats" }),
    ]);
    const controller = new AbortController();
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    const agent = new SessionAgent({
      session,
      model,
      generateId: ids(),
      tools: {
        slow_lookup: {
          description: "A lookup that takes a while",
          inputSchema: z.object({ query: z.string() }),
          execute: () => {
            started();
            return new Promise<string>(() => {});
          },
        },
      },
    });

    const running = agent.run("I have a cat.", {
      abortSignal: controller.signal,
    });
    await toolStarted;
    controller.abort();
    const turn = await running;

    expect(turn.status).toBe("aborted");
    expect(turn.steps).toHaveLength(1);
    const parts = turn.assistantMessage!.parts;
    expect(parts.map((part) => [part.type, part.state])).toEqual([
      ["step-start", undefined],
      ["tool-set_context", "output-available"],
      ["step-start", undefined],
      ["tool-slow_lookup", "output-error"],
    ]);
    expect(parts[3]!.errorText).toBe(INTERRUPTED_TOOL_ERROR);
    expect(
      await convertToModelMessages((await session.getHistory()) as UIMessage[]),
    ).toHaveLength(5);
  });

  it("a model error after a finished step keeps that step and rethrows", async () => {
    const session = withMemory(open());
    let call = 0;
    const model = scriptedModel(() => {
      call++;
      if (call === 1) return toolSetContext("Likes jazz.");
      throw new Error("scripted fake model: the endpoint went away");
    });
    const agent = new SessionAgent({ session, model, generateId: ids() });

    await expect(agent.run("I like jazz.")).rejects.toThrow(
      "the endpoint went away",
    );
    const stored = await session.getMessage("id-2");
    expect(stored!.parts.map((part) => part.type)).toEqual([
      "step-start",
      "tool-set_context",
    ]);
    expect(stored!.metadata).toMatchObject({
      steps: 1,
      error: expect.stringContaining("the endpoint went away"),
    });
    // The failed turn still refreshed the prompt.
    expect(await session.freezeSystemPrompt()).toContain("Likes jazz.");
  });

  it("forwards AI SDK UI message chunks to onChunk", async () => {
    const chunks: UIMessageChunk[] = [];
    await runTurn({
      session: open(),
      model: scriptedModel([textStep("Hi there.")]),
      input: "Hi",
      onChunk: (chunk: UIMessageChunk) => {
        chunks.push(chunk);
      },
    });
    const types = chunks.map((chunk) => chunk.type);
    expect(types[0]).toBe("start");
    expect(types).toContain("text-delta");
    expect(types.at(-1)).toBe("finish");
  });

  it("compaction during a long run: overlays appear and the model's prompt shows the summary", async () => {
    const fakeSummarizer = vi.fn(
      async () => "FAKE SUMMARY: the user counted sheep.",
    );
    const session = open()
      .onCompaction(
        createCompactFunction({
          summarize: fakeSummarizer,
          protectHead: 1,
          tailTokenBudget: 40,
          label: "fake-summarizer",
        }),
      )
      .compactAfter(120);
    const model = scriptedModel((_call, index) =>
      textStep(`Sheep number ${index + 1} counted, and that is fine.`),
    );
    const agent = new SessionAgent({ session, model, generateId: ids() });

    for (let index = 1; index <= 10; index++)
      await agent.run(`Please count sheep number ${index} for me now.`);

    expect(fakeSummarizer).toHaveBeenCalled();
    expect((await session.getCompactions()).length).toBeGreaterThan(0);
    expect(await session.getPathLength()).toBe(20);
    const lastPrompt = promptText(model.doStreamCalls.at(-1)!);
    expect(lastPrompt).toContain("FAKE SUMMARY: the user counted sheep.");
    expect(lastPrompt).not.toContain("sheep number 2 for me");
    expect(lastPrompt).toContain("sheep number 10 for me");
  });

  it("switchBranch() makes an older answer the active branch: the next run continues from it", async () => {
    const session = open();
    const model = scriptedModel([
      textStep("First answer."),
      textStep("Second answer."),
      textStep("Follow-up answer."),
    ]);
    const agent = new SessionAgent({ session, model, generateId: ids() });
    const first = await agent.run("Q");
    await agent.regenerate(first.userMessage.id);

    await agent.switchBranch(first.assistantMessage!.id);
    const next = await agent.run("Follow-up");

    expect((await session.getHistory()).map(textOf)).toEqual([
      "Q",
      "First answer.",
      "Follow-up",
      "Follow-up answer.",
    ]);
    expect(promptText(model.doStreamCalls[2]!)).toContain("First answer.");
    expect(promptText(model.doStreamCalls[2]!)).not.toContain("Second answer.");
    expect(next.status).toBe("completed");
    await expect(agent.switchBranch("nope")).rejects.toMatchObject({
      code: "MESSAGE_NOT_FOUND",
    });
  });

  it("records the context sent to the model on an audited session (withAudit + includeContext)", async () => {
    const sink = new InMemoryAuditSink();
    const session = withMemory(open()).withAudit(sink, {
      includeContext: true,
    });
    const turn = await runTurn({
      session,
      model: scriptedModel([textStep("Hello.")]),
      input: "Hi",
    });
    await session.flushAudit();

    const contexts = sink.events.filter((event) => event.type === "context");
    expect(contexts).toHaveLength(1);
    const context = contexts[0]!.payload as {
      system: string;
      messages: unknown[];
      tools: string[];
      response: SessionMessage;
    };
    expect(context.system).toContain("MEMORY");
    expect(context.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Hi" }] },
    ]);
    expect(context.tools).toEqual(["set_context"]);
    expect(context.response).toEqual(
      JSON.parse(JSON.stringify(turn.assistantMessage)),
    );
    // The answer was appended once, then updated with its final metadata.
    const writes = sink.events
      .filter((event) => event.type === "append" || event.type === "update")
      .map((event) => event.type);
    expect(writes).toEqual(["append", "append", "update"]);
  });

  it("runs turns of one agent one at a time, in call order", async () => {
    const session = open();
    const model = scriptedModel([textStep("A1."), textStep("A2.")]);
    const agent = new SessionAgent({ session, model, generateId: ids() });
    const [one, two] = await Promise.all([agent.run("Q1"), agent.run("Q2")]);
    expect(
      (await session.getHistory()).map((message) => textOf(message)),
    ).toEqual(["Q1", "A1.", "Q2", "A2."]);
    expect(one.text).toBe("A1.");
    expect(two.text).toBe("A2.");
  });
});

describe("SessionAgent on a SessionManager", () => {
  it("records usage and cost with addUsage and offers session_search", async () => {
    const manager = SessionManager.inMemory().withContext("memory", {
      description: "Facts",
    });
    const info = await manager.create("Tea chat");
    const model = scriptedModel([
      toolSetContext("Likes oolong."),
      textStep("Noted.", { input: 20, output: 3 }),
      textStep("Hello.", { input: 30, output: 4 }),
    ]);
    const agent = new SessionAgent({
      manager,
      sessionId: info.id,
      model,
      pricing: { inputPerMillionTokens: 2, outputPerMillionTokens: 10 },
    });

    const first = await agent.run("I like oolong.");
    await agent.run("Hi.");

    expect(first.usage).toEqual({
      inputTokens: 30,
      outputTokens: 8,
      totalTokens: 38,
      cost: (30 * 2 + 8 * 10) / 1_000_000,
    });
    const row = await manager.get(info.id);
    expect(row).toMatchObject({ input_tokens: 60, output_tokens: 12 });
    expect(row!.estimated_cost).toBeCloseTo((60 * 2 + 12 * 10) / 1_000_000, 12);
    expect(model.doStreamCalls[0]!.tools?.map((tool) => tool.name)).toEqual([
      "set_context",
      "session_search",
    ]);
    expect(await manager.getHistory(info.id)).toHaveLength(4);
  });

  it("refuses a session id the manager does not know, before writing anything", async () => {
    const manager = SessionManager.inMemory();
    const agent = new SessionAgent({
      manager,
      sessionId: "missing",
      model: scriptedModel([textStep("Never.")]),
    });
    const error = await agent.run("Hi").catch((caught: unknown) => caught);
    expect(isArborError(error) && error.code).toBe("SESSION_NOT_FOUND");
    expect(await manager.getSession("missing").getHistory()).toEqual([]);
  });
});

describe("SessionAgent options", () => {
  it("rejects missing pieces with INVALID_ARGUMENT", () => {
    const session = Session.create(new InMemorySessionProvider());
    expect(
      () => new SessionAgent({ session, model: undefined as never }),
    ).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(
      () =>
        new SessionAgent({
          session,
          model: scriptedModel([]),
          maxSteps: 0,
        }),
    ).toThrow(/maxSteps/);
  });

  it("stops after maxSteps model calls", async () => {
    const session = withMemory(Session.create(new InMemorySessionProvider()));
    const model = scriptedModel((_call, index) =>
      toolStep(`call-${index}`, "set_context", {
        label: "memory",
        content: `fact ${index}`,
        action: "append",
      }),
    );
    const turn = await runTurn({ session, model, maxSteps: 3, input: "Go" });
    expect(turn.steps).toHaveLength(3);
    expect(turn.finishReason).toBe("tool-calls");
    expect(model.doStreamCalls).toHaveLength(3);
  });
});
