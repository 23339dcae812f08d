import { describe, expect, it } from "vitest";
import type { SessionMessage } from "../../session/contracts/types.js";
import { chat } from "../__fixtures__/transcripts.js";
import { estimateMessageTokens } from "../tokens/estimate.js";
import { buildSummaryPrompt, computeSummaryBudget } from "./summary-prompt.js";

const HEADINGS = [
  "## Topic",
  "## Key Points",
  "## Current State",
  "## Open Items",
];

describe("buildSummaryPrompt", () => {
  it("lays out a first compaction: instruction, transcript, structure, target", () => {
    const prompt = buildSummaryPrompt(chat(2, 2), null, 123);
    const at = (text: string) => prompt.indexOf(text);
    expect(
      at(
        "CONVERSATION TO SUMMARIZE:\n\n[user]\nw0_0 w0_1\n\n---\n\n[assistant]\nw1_0 w1_1",
      ),
    ).toBeGreaterThan(0);
    const positions = HEADINGS.map(at);
    expect(
      positions.every((position) => position > at("[assistant]\nw1_0")),
    ).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    for (const heading of HEADINGS)
      expect(prompt).toMatch(new RegExp(`\\n${heading}\\n\\[[^\\]\\n]+\\]\\n`));
    const closing = prompt.slice(prompt.lastIndexOf("\n\n") + 2);
    expect(closing).toMatch(/^Target ~123 tokens\. /);
    expect(closing).toMatch(
      /do not invent file paths, commands or other details/,
    );
    expect(closing).toMatch(/summary body only/);
    expect(prompt).not.toContain("PREVIOUS SUMMARY:");
  });

  it("lays out an update: previous summary, new turns, merge rule, structure, target", () => {
    const prompt = buildSummaryPrompt(
      chat(1, 2),
      "Trip planning to Lisbon",
      100,
    );
    const order = [
      "PREVIOUS SUMMARY:\n\nTrip planning to Lisbon",
      "NEW TURNS TO INCORPORATE:\n\n[user]\nw0_0 w0_1",
      "drop only what is clearly obsolete",
      ...HEADINGS,
      "Target ~100 tokens.",
    ];
    const positions = order.map((text) => prompt.indexOf(text));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(prompt).not.toContain("CONVERSATION TO SUMMARIZE:");
  });

  it("renders text parts, then one block per tool part, and leaves reasoning out", () => {
    const message: SessionMessage = {
      id: "a",
      role: "assistant",
      parts: [
        { type: "reasoning", text: "private thoughts" },
        { type: "text", text: "Checking." },
        {
          type: "tool-weather",
          toolCallId: "c1",
          state: "output-available",
          input: { city: "Lisbon" },
          output: { temperature: 21 },
        },
        { type: "text", text: "Done." },
        {
          type: "dynamic-tool",
          toolName: "lookup",
          toolCallId: "c2",
          state: "input-available",
          input: "",
        },
        { type: "dynamic-tool", toolCallId: "c3", output: "plain text" },
        { type: "tool-result", toolCallId: "c4", result: 42 },
      ],
    };
    const prompt = buildSummaryPrompt([message], null, 100);
    expect(prompt).toContain(
      [
        "[assistant]",
        "Checking.\nDone.",
        '[Tool: weather]\nInput: {"city":"Lisbon"}\nOutput: {"temperature":21}',
        "[Tool: lookup]",
        "[Tool: unknown]\nOutput: plain text",
        "[Tool: result]\nOutput: 42",
      ].join("\n") + "\n\n",
    );
    expect(prompt).not.toContain("private thoughts");
  });

  it("cuts tool input and output to 500 characters", () => {
    const output = "o".repeat(800);
    const input = { text: "i".repeat(800) };
    const prompt = buildSummaryPrompt(
      [
        {
          id: "a",
          role: "assistant",
          parts: [{ type: "tool-x", toolCallId: "c", input, output }],
        },
      ],
      null,
      100,
    );
    expect(prompt).toContain(
      `Input: ${JSON.stringify(input).slice(0, 500)}\nOutput: ${"o".repeat(500)}\n`,
    );
    expect(prompt).not.toContain("o".repeat(501));
  });
});

describe("computeSummaryBudget", () => {
  it("is a fifth of the estimate, at least 100", () => {
    expect(computeSummaryBudget([])).toBe(100);
    const messages = chat(10, 200);
    expect(computeSummaryBudget(messages)).toBe(
      Math.floor(estimateMessageTokens(messages) / 5),
    );
    expect(computeSummaryBudget(messages)).toBeGreaterThan(100);
  });
});
