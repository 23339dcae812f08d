import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { InMemorySessionProvider, Session } from "../session/index.js";
import { createCompactFunction } from "../utils/index.js";
import { summarizeWith } from "./summarize-with.js";

describe("summarizeWith", () => {
  it("summarizes through generateText with a scripted fake model and feeds compaction", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: {
        content: [{ type: "text", text: "## Topic\nTea brewing." }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: {
          inputTokens: {
            total: 1,
            noCache: 1,
            cacheRead: undefined,
            cacheWrite: undefined,
          },
          outputTokens: { total: 1, text: 1, reasoning: undefined },
        },
        warnings: [],
      },
    });
    const session = Session.create(new InMemorySessionProvider()).onCompaction(
      createCompactFunction({
        summarize: summarizeWith(model, { maxOutputTokens: 300 }),
        protectHead: 1,
        tailTokenBudget: 10,
        label: "fake-model",
      }),
    );
    for (let index = 1; index <= 6; index++) {
      await session.appendMessage({
        id: `m${index}`,
        role: index % 2 ? "user" : "assistant",
        parts: [
          {
            type: "text",
            text: `tea message ${index} about brewing green tea`,
          },
        ],
      });
    }
    const result = await session.compact();
    expect(result?.summary).toBe("## Topic\nTea brewing.");
    const call = model.doGenerateCalls[0]!;
    expect(call.maxOutputTokens).toBe(300);
    expect(call.temperature).toBe(0);
    expect(JSON.stringify(call.prompt)).toContain("CONVERSATION TO SUMMARIZE:");
    expect((await session.getCompactions())[0]!.meta!.summarizer).toBe(
      "fake-model",
    );
  });
});
