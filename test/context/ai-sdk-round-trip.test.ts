// The context tools driven by the real AI SDK (`generateText` from `ai`) and a scripted fake
// model (`MockLanguageModelV3` from `ai/test`), on SQLite and in-memory sessions.
import { generateText, stepCountIs, type ToolSet } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import {
  InMemorySessionProvider,
  Session,
  type SessionMessage,
} from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { skillProvider } from "../../src/testing/context-fixtures.js";

const usage = {
  inputTokens: {
    total: 10,
    noCache: 10,
    cacheRead: undefined,
    cacheWrite: undefined,
  },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function toolCallStep(toolCallId: string, toolName: string, input: unknown) {
  return {
    content: [
      {
        type: "tool-call" as const,
        toolCallId,
        toolName,
        input: JSON.stringify(input),
      },
    ],
    finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
    usage,
    warnings: [],
  };
}

function textStep(text: string) {
  return {
    content: [{ type: "text" as const, text }],
    finishReason: { unified: "stop" as const, raw: "stop" },
    usage,
    warnings: [],
  };
}

const backends: Array<[string, () => Session]> = [
  ["SQLite", () => Session.create(openSqlite(":memory:")).forSession("chat")],
  ["in-memory", () => Session.create(new InMemorySessionProvider())],
];

describe.each(backends)("AI SDK round trip on %s", (_name, open) => {
  it("a scripted fake model calls set_context and load_context through generateText; the transcript is stored", async () => {
    const skills = skillProvider({
      "tea-guide": { content: "Brew green tea at 80°C.", description: "Tea" },
    });
    const configure = (session: Session) =>
      session
        .withContext("memory", { description: "Learned facts", maxTokens: 200 })
        .withContext("skills", { provider: skills });
    const session = configure(open());
    const user: SessionMessage = {
      id: "u1",
      role: "user",
      parts: [{ type: "text", text: "I like green tea. How do I brew it?" }],
    };
    await session.appendMessage(user);

    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallStep("call-1", "set_context", {
          label: "memory",
          content: "User likes green tea.",
        }),
        toolCallStep("call-2", "load_context", {
          label: "skills",
          key: "tea-guide",
        }),
        textStep("Brew it at 80°C."),
      ],
    });
    const system = await session.freezeSystemPrompt();
    const result = await generateText({
      model,
      system,
      tools: (await session.tools()) as unknown as ToolSet,
      messages: [
        { role: "user", content: "I like green tea. How do I brew it?" },
      ],
      stopWhen: stepCountIs(5),
    });

    // The model saw Arbor's tools as JSON schemas with the block labels as enums.
    const offered = model.doGenerateCalls[0]!.tools!.map(
      (tool) => tool.name,
    ).sort();
    expect(offered).toEqual(["load_context", "set_context", "unload_context"]);
    const setContext = model.doGenerateCalls[0]!.tools!.find(
      (tool) => tool.name === "set_context",
    )!;
    expect(JSON.stringify(setContext)).toContain('"enum":["memory","skills"]');
    expect(model.doGenerateCalls[0]!.prompt[0]).toEqual({
      role: "system",
      content: system,
    });

    const toolResults = result.steps.flatMap((step) => step.toolResults);
    expect(toolResults.map((entry) => [entry.toolName, entry.output])).toEqual([
      ["set_context", "Written to memory. Usage: 3% (6/200 tokens)"],
      ["load_context", "Brew green tea at 80°C."],
    ]);
    expect(result.text).toBe("Brew it at 80°C.");

    // Persist the assistant turn as a UI message: static tool parts, then the text.
    const assistant: SessionMessage = {
      id: "a1",
      role: "assistant",
      parts: [
        ...toolResults.map((entry) => ({
          type: `tool-${entry.toolName}`,
          toolCallId: entry.toolCallId,
          state: "output-available",
          input: entry.input,
          output: entry.output,
        })),
        { type: "text", text: result.text },
      ],
    };
    await session.appendMessage(assistant);

    const history = await session.getHistory();
    expect(history.map((message) => message.id)).toEqual(["u1", "a1"]);
    expect(history[1]!.parts.map((part) => part.type)).toEqual([
      "tool-set_context",
      "tool-load_context",
      "text",
    ]);
    expect(session.getContextBlock("memory")!.content).toBe(
      "User likes green tea.",
    );
    expect(await session.freezeSystemPrompt()).toBe(system);
    expect(await session.refreshSystemPrompt()).toContain(
      "User likes green tea.",
    );
    expect([...(await session.getLoadedSkillKeys())]).toEqual([
      "skills:tea-guide",
    ]);
    const versions = await session.getContextBlockHistory("memory");
    expect(versions.map((entry) => [entry.source, entry.toolCallId])).toEqual([
      ["tool", "call-1"],
    ]);
  });

  it("a scripted fake model unloads a skill; the stored load result is reclaimed", async () => {
    const session = open().withContext("skills", {
      provider: skillProvider({ guide: { content: "LONG GUIDE BODY" } }),
    });
    await session.appendMessage({
      id: "u1",
      role: "user",
      parts: [{ type: "text", text: "hi" }],
    });
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallStep("c1", "load_context", { label: "skills", key: "guide" }),
        toolCallStep("c2", "unload_context", { label: "skills", key: "guide" }),
        textStep("done"),
      ],
    });
    // The first step's result is stored before the unload runs, as a host persisting each step does.
    const tools = (await session.tools()) as unknown as ToolSet;
    const result = await generateText({
      model,
      tools,
      prompt: "hi",
      stopWhen: stepCountIs(5),
      onStepFinish: async (step) => {
        const parts = step.toolResults.map((entry) => ({
          type: `tool-${entry.toolName}`,
          toolCallId: entry.toolCallId,
          state: "output-available",
          input: entry.input,
          output: entry.output,
        }));
        if (parts.length > 0 && parts[0]!.type === "tool-load_context") {
          await session.appendMessage({ id: "a1", role: "assistant", parts });
        }
      },
    });
    expect(result.steps[1]!.toolResults[0]!.output).toBe(
      'Unloaded "guide" from skills. Context reclaimed.',
    );
    const stored = await session.getMessage("a1");
    expect(stored!.parts[0]!.output).toBe("[skill unloaded: guide]");
  });
});
