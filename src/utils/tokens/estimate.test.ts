import { describe, expect, it } from "vitest";
import type { SessionMessage } from "../../session/contracts/types.js";
import {
  CHARS_PER_TOKEN,
  estimateMessageTokens,
  estimateStringTokens,
  TOKENS_PER_MESSAGE,
  WORDS_TOKEN_MULTIPLIER,
} from "./estimate.js";

const message = (parts: SessionMessage["parts"]): SessionMessage => ({
  id: "m",
  role: "assistant",
  parts,
});

describe("estimateStringTokens", () => {
  it("uses the docs/behavior/overlays.md constants", () => {
    expect([
      CHARS_PER_TOKEN,
      WORDS_TOKEN_MULTIPLIER,
      TOKENS_PER_MESSAGE,
    ]).toEqual([4, 1.3, 4]);
  });

  it('estimates "Hello world" as 3 tokens', () => {
    expect(estimateStringTokens("Hello world")).toBe(3);
  });

  it("is 0 for the empty string", () => {
    expect(estimateStringTokens("")).toBe(0);
  });

  it("takes the larger of characters / 4 and words × 1.3, rounded up", () => {
    expect(estimateStringTokens("a b c d e f g h i j")).toBe(13); // 10 words → 13 > 19 / 4
    expect(estimateStringTokens("x".repeat(401))).toBe(101); // one word, 401 / 4 → 100.25
  });

  it("counts whitespace-separated pieces, ignoring leading, trailing and repeated whitespace", () => {
    expect(estimateStringTokens("  a\t\tb\n c\u00a0d\u3000e  ")).toBe(7); // 5 words → 6.5
  });

  it("measures length in UTF-16 code units", () => {
    expect(estimateStringTokens("😀".repeat(4))).toBe(2); // 8 code units, 1 word
  });
});

describe("estimateMessageTokens", () => {
  it("is 0 for no messages and 4 per empty message", () => {
    expect(estimateMessageTokens([])).toBe(0);
    expect(estimateMessageTokens([message([]), message([])])).toBe(8);
  });

  it("counts text and reasoning parts", () => {
    expect(
      estimateMessageTokens([
        message([
          { type: "text", text: "Hello world" },
          { type: "reasoning", text: "Hello world" },
          { type: "reasoning", reasoning: "Hello world" },
        ]),
      ]),
    ).toBe(4 + 3 + 3 + 3);
  });

  it("counts tool input plus output, or result when there is no output", () => {
    const input = { query: "weather in Lisbon" };
    const inputTokens = estimateStringTokens(JSON.stringify(input));
    expect(
      estimateMessageTokens([
        message([
          {
            type: "tool-search",
            toolCallId: "c",
            input,
            output: "Hello world",
          },
        ]),
      ]),
    ).toBe(4 + inputTokens + 3);
    expect(
      estimateMessageTokens([
        message([
          {
            type: "dynamic-tool",
            toolName: "x",
            toolCallId: "c",
            result: "Hello world",
          },
        ]),
      ]),
    ).toBe(4 + 3);
  });

  it("JSON-encodes non-string values", () => {
    const output = { temperature: 21, unit: "C" };
    expect(
      estimateMessageTokens([message([{ type: "tool-weather", output }])]),
    ).toBe(4 + estimateStringTokens(JSON.stringify(output)));
  });

  it("counts other parts by text, else result, else 0 (file parts count nothing)", () => {
    expect(
      estimateMessageTokens([
        message([
          { type: "data-note", text: "Hello world" },
          { type: "data-other", result: "Hello world" },
          {
            type: "file",
            mediaType: "image/png",
            url: "data:image/png;base64,AAAA",
          },
          { type: "step-start" },
        ]),
      ]),
    ).toBe(4 + 3 + 3);
  });

  it("never throws on values JSON cannot represent", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(
      estimateMessageTokens([
        message([
          { type: "tool-x", output: cyclic },
          { type: "tool-y", output: 10n },
        ]),
      ]),
    ).toBe(
      4 + estimateStringTokens("[object Object]") + estimateStringTokens("10"),
    );
  });
});
