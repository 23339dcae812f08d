import { describe, expect, it } from "vitest";
import type { SessionMessage } from "../../session/contracts/types.js";
import {
  aiSdkToolTurn,
  assistant,
  chat,
  fakeSummarizer,
  summaryMessage,
  toolCall,
  toolResult,
  user,
} from "../__fixtures__/transcripts.js";
import { estimateMessageTokens } from "../tokens/estimate.js";
import { createCompactFunction } from "./compact-function.js";

// Each chat() message is 11 heuristic tokens, so a 33-token tail holds 3 messages.
const TAIL_OF_THREE = 33;

describe("createCompactFunction with a fake summarizer that records prompts", () => {
  it("summarizes the middle and protects the head and the tail", async () => {
    const fake = fakeSummarizer();
    const compact = createCompactFunction({
      summarize: fake.summarize,
      tailTokenBudget: TAIL_OF_THREE,
    });
    const result = await compact(chat(10));
    expect(result).toEqual({
      fromMessageId: "m3",
      toMessageId: "m6",
      summary: "summary 1",
    });
    const prompt = fake.prompts[0]!;
    for (const id of [3, 4, 5, 6]) expect(prompt).toContain(`w${id}_0`);
    for (const id of [0, 1, 2, 7, 8, 9])
      expect(prompt).not.toContain(`w${id}_0`);
  });

  it("asks for the four sections and the target length", async () => {
    const fake = fakeSummarizer();
    await createCompactFunction({
      summarize: fake.summarize,
      tailTokenBudget: TAIL_OF_THREE,
    })(chat(10));
    const prompt = fake.prompts[0]!;
    expect(prompt).toContain("CONVERSATION TO SUMMARIZE:");
    for (const heading of [
      "## Topic",
      "## Key Points",
      "## Current State",
      "## Open Items",
    ])
      expect(prompt).toContain(`\n${heading}\n`);
    expect(prompt).toMatch(/\nTarget ~100 tokens\. /);
    expect(prompt).not.toContain("PREVIOUS SUMMARY:");
  });

  it("gives an iterative update the previous summary and leaves the summary out of the new turns", async () => {
    const fake = fakeSummarizer(["## Topic\nupdated"]);
    const messages = [
      ...chat(3),
      summaryMessage("o1", "## Topic\nthe earlier summary"),
      ...chat(10)
        .slice(3)
        .map((m) => ({ ...m, id: `n${m.id}` })),
    ];
    const result = await createCompactFunction({
      summarize: fake.summarize,
      tailTokenBudget: TAIL_OF_THREE,
    })(messages);
    // The synthetic message is skipped: the range starts at the first real message after it.
    expect(result).toEqual({
      fromMessageId: "nm3",
      toMessageId: "nm6",
      summary: "## Topic\nupdated",
    });
    const prompt = fake.prompts[0]!;
    expect(prompt).toContain(
      "PREVIOUS SUMMARY:\n\n## Topic\nthe earlier summary\n\nNEW TURNS TO INCORPORATE:\n\n[assistant]\nw3_0",
    );
    expect(prompt.match(/the earlier summary/g)).toHaveLength(1);
  });

  it("returns null without calling the summarizer when there is too little history", async () => {
    const fake = fakeSummarizer();
    const compact = createCompactFunction({
      summarize: fake.summarize,
      protectHead: 3,
      minTailMessages: 2,
    });
    expect(await compact(chat(5))).toBeNull();
    expect(await compact(chat(8))).toBeNull(); // fits the default 20000-token tail
    expect(fake.prompts).toHaveLength(0);
  });

  it("returns null when only synthetic messages lie between head and tail", async () => {
    const fake = fakeSummarizer();
    const messages = [...chat(3), summaryMessage("o1", "old"), ...chat(2)];
    expect(
      await createCompactFunction({
        summarize: fake.summarize,
        tailTokenBudget: 0,
      })(messages),
    ).toBeNull();
    expect(fake.prompts).toHaveLength(0);
  });

  it("returns null for a blank summary", async () => {
    const fake = fakeSummarizer([" \n\t "]);
    expect(
      await createCompactFunction({
        summarize: fake.summarize,
        tailTokenBudget: 0,
      })(chat(10)),
    ).toBeNull();
    expect(fake.prompts).toHaveLength(1);
  });

  it("propagates a throwing summarizer", async () => {
    const failure = new Error("model unavailable");
    const compact = createCompactFunction({
      summarize: async () => {
        throw failure;
      },
      tailTokenBudget: 0,
    });
    await expect(compact(chat(10))).rejects.toBe(failure);
  });

  it("rejects a missing summarize option", () => {
    // @ts-expect-error -- no summarize, on purpose
    expect(() => createCompactFunction({})).toThrow(TypeError);
  });

  it("sets the budget to a fifth of the summarized messages' estimate", async () => {
    const fake = fakeSummarizer();
    const messages = chat(10, 200); // 264 tokens each
    await createCompactFunction({
      summarize: fake.summarize,
      tailTokenBudget: 0,
    })(messages);
    const middle = messages.slice(3, 8);
    expect(fake.prompts[0]).toContain(
      `Target ~${Math.floor(0.2 * estimateMessageTokens(middle))} tokens.`,
    );
  });

  it("records the label as meta.summarizer", async () => {
    const fake = fakeSummarizer();
    const result = await createCompactFunction({
      summarize: fake.summarize,
      tailTokenBudget: 0,
      label: "fake-model",
    })(chat(10));
    expect(result?.meta).toEqual({ summarizer: "fake-model" });
  });

  it("counts with options.tokenCounter, else the session counter one message at a time", async () => {
    const fake = fakeSummarizer();
    const seen: unknown[] = [];
    const session = createCompactFunction({
      summarize: fake.summarize,
      tailTokenBudget: 2,
    });
    const result = await session(chat(10), {
      tokenCounter: (input) => {
        seen.push(input);
        return 1;
      },
    });
    expect(result).toMatchObject({ fromMessageId: "m3", toMessageId: "m7" });
    expect(seen[0]).toEqual({
      messages: [chat(10)[9]],
      systemPrompt: "",
      contextBlocks: [],
    });

    const own = createCompactFunction({
      summarize: fake.summarize,
      tailTokenBudget: 3,
      tokenCounter: (messages) => messages.length,
    });
    expect(await own(chat(10), { tokenCounter: () => 1000 })).toMatchObject({
      toMessageId: "m6",
    });
  });

  it("with a fake summarizer and no tailTokenBudget, protects a tail of half the context's threshold (default 20000 above 40000)", async () => {
    // 10 messages of 11 tokens: a 33-token threshold leaves a 16-token tail (one message, then
    // minTailMessages widens it to two); without a threshold the 20000-token tail keeps them all.
    const fake = fakeSummarizer();
    const compact = createCompactFunction({ summarize: fake.summarize });
    expect(await compact(chat(10))).toBeNull();
    expect(await compact(chat(10), { threshold: 100_000 })).toBeNull();
    expect(await compact(chat(10), { threshold: 33 })).toMatchObject({
      fromMessageId: "m3",
      toMessageId: "m7",
    });
    expect(
      await createCompactFunction({
        summarize: fake.summarize,
        tailTokenBudget: 20_000,
      })(chat(10), { threshold: 33 }),
    ).toBeNull();
  });

  it("treats non-finite counts as 0", async () => {
    const fake = fakeSummarizer();
    const compact = createCompactFunction({
      summarize: fake.summarize,
      tailTokenBudget: 0,
      tokenCounter: () => Number.NaN,
    });
    // Every message costs 0, so the whole transcript after the head fits the tail.
    expect(await compact(chat(10))).toBeNull();
  });

  it("renders tool calls with their real names and JSON outputs", async () => {
    const fake = fakeSummarizer();
    const messages: SessionMessage[] = [
      ...chat(3),
      aiSdkToolTurn("a3", "c1", { temperature: 21, unit: "C" }),
      {
        id: "a4",
        role: "assistant",
        parts: [
          {
            type: "dynamic-tool",
            toolName: "lookup",
            toolCallId: "c2",
            state: "output-available",
            input: { id: 7 },
            output: "found",
          },
        ],
      },
      ...chat(2),
    ];
    await createCompactFunction({
      summarize: fake.summarize,
      tailTokenBudget: 0,
    })(messages);
    expect(fake.prompts[0]).toContain(
      '[assistant]\n[Tool: weather]\nInput: {"city":"Lisbon"}\nOutput: {"temperature":21,"unit":"C"}\n\n---\n\n[assistant]\n[Tool: lookup]\nInput: {"id":7}\nOutput: found',
    );
  });
});

describe("createCompactFunction never splits a tool call from its results", () => {
  it("keeps results that arrive several messages after the call out of a split (alignment alone would split)", async () => {
    const fake = fakeSummarizer();
    const messages = [
      ...chat(3),
      toolCall("a3", { callId: "c1" }),
      user("u4", "meanwhile"),
      assistant("a5", "still waiting"),
      toolResult("r6", { callId: "c1" }),
      user("u7"),
    ];
    // Alignment alone picks m3 … u5 (the tail is r6, u7): the call would be summarized, its result kept.
    // Shrinking to end before the call leaves nothing after the head.
    const result = await createCompactFunction({
      summarize: fake.summarize,
      tailTokenBudget: 0,
      minTailMessages: 2,
    })(messages);
    expect(result).toBeNull();
    // With a longer head-free range, the summary stops before the call instead.
    const longer = [...messages, assistant("a8"), user("u9")];
    expect(
      await createCompactFunction({
        summarize: fake.summarize,
        tailTokenBudget: 0,
        protectHead: 1,
        minTailMessages: 4,
      })(longer),
    ).toMatchObject({ fromMessageId: "m1", toMessageId: "m2" });
  });

  it("keeps the whole group inside the range when it fits there", async () => {
    const fake = fakeSummarizer();
    const messages = [
      ...chat(3),
      toolCall("a3", { callId: "c1" }, { callId: "c2" }),
      toolResult("r4", { callId: "c1" }),
      toolResult("r5", { callId: "c2" }),
      ...chat(4).map((m) => ({ ...m, id: `t${m.id}` })),
    ];
    const result = await createCompactFunction({
      summarize: fake.summarize,
      tailTokenBudget: 22,
    })(messages);
    expect(result).toMatchObject({ fromMessageId: "a3", toMessageId: "tm1" });
  });

  it("pushes the start past a group whose call sits in the head", async () => {
    const fake = fakeSummarizer();
    const messages = [
      user("u0"),
      toolCall("a1", { callId: "c1" }),
      user("u2", "interjection"),
      toolResult("r3", { callId: "c1" }),
      ...chat(6),
    ];
    const result = await createCompactFunction({
      summarize: fake.summarize,
      protectHead: 2,
      tailTokenBudget: 0,
    })(messages);
    expect(result).toMatchObject({ fromMessageId: "m0", toMessageId: "m3" });
  });
});
