// The context tools' JSON Schema inputs through the real AI SDK: the model is offered the JSON
// Schema, valid input reaches `execute`, invalid input becomes a tool error (as it did with zod).
import { generateText, stepCountIs, type ToolSet } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { InMemorySessionProvider, Session } from "../../index.js";
import {
  objectProperty,
  stringProperty,
  toolInputSchema,
} from "./tool-schema.js";

const usage = {
  inputTokens: {
    total: 1,
    noCache: 1,
    cacheRead: undefined,
    cacheWrite: undefined,
  },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

const schema = toolInputSchema<{ label: string; note?: { title?: string } }>(
  objectProperty(
    {
      label: stringProperty("Label", ["memory", "notes"]),
      note: objectProperty({ title: stringProperty("Title") }, []),
    },
    ["label"],
  ),
);

describe("toolInputSchema", () => {
  it("accepts valid input and drops unknown keys", () => {
    expect(schema.validate({ label: "notes", extra: 1 })).toEqual({
      success: true,
      value: { label: "notes" },
    });
    expect(schema["~standard"].validate({ label: "memory" })).toEqual({
      value: { label: "memory" },
    });
  });

  it("reports each invalid field with its path", () => {
    const result = schema.validate({ label: "other", note: { title: 3 } });
    expect(result.success).toBe(false);
    expect(!result.success && result.error.message).toBe(
      'label: expected one of "memory", "notes"; note.title: expected string, got number',
    );
    expect(schema["~standard"].validate(null)).toEqual({
      issues: [{ message: "expected object, got null", path: [] }],
    });
    expect(schema["~standard"].validate({})).toEqual({
      issues: [{ message: "required", path: ["label"] }],
    });
  });

  it("through generateText: a call with invalid input becomes a tool error and never runs", async () => {
    const session = Session.create(new InMemorySessionProvider()).withContext(
      "memory",
      { description: "Facts", maxTokens: 200 },
    );
    const call = (toolCallId: string, input: unknown) => ({
      content: [
        {
          type: "tool-call" as const,
          toolCallId,
          toolName: "set_context",
          input: JSON.stringify(input),
        },
      ],
      finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
      usage,
      warnings: [],
    });
    const model = new MockLanguageModelV3({
      doGenerate: [
        call("bad", { label: "nowhere", content: "x" }),
        call("good", { label: "memory", content: "Likes tea." }),
        {
          content: [{ type: "text" as const, text: "Done." }],
          finishReason: { unified: "stop" as const, raw: "stop" },
          usage,
          warnings: [],
        },
      ],
    });
    const result = await generateText({
      model,
      tools: (await session.tools()) as ToolSet,
      prompt: "Remember that I like tea.",
      stopWhen: stepCountIs(5),
    });

    const offered = model.doGenerateCalls[0]!.tools!.find(
      (tool) => tool.name === "set_context",
    )!;
    expect(offered).toMatchObject({
      inputSchema: {
        type: "object",
        properties: { label: { type: "string", enum: ["memory"] } },
        required: ["label", "content"],
        additionalProperties: false,
      },
    });
    const errors = result.steps[0]!.content.filter(
      (part) => part.type === "tool-error",
    );
    expect(errors).toHaveLength(1);
    expect(String((errors[0] as { error: unknown }).error)).toContain(
      'label: expected one of "memory"',
    );
    expect(
      result.steps[1]!.toolResults.map((entry): unknown => entry.output),
    ).toEqual(["Written to memory. Usage: 2% (3/200 tokens)"]);
    expect(session.getContextBlock("memory")).toMatchObject({
      content: "Likes tea.",
    });
  });
});
