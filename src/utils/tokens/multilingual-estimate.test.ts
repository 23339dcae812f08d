import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type {
  ContextBlock,
  SessionMessage,
} from "../../session/contracts/types.js";
import { estimateStringTokens } from "./estimate.js";
import {
  estimateMessageTokensMultilingual,
  estimateStringTokensMultilingual as estimate,
  MULTILINGUAL_TOKEN_WEIGHTS,
  multilingualTokenCounter,
} from "./multilingual-estimate.js";

const text = (value: string) => ({ type: "text", text: value });

describe("estimateStringTokensMultilingual", () => {
  it("is 0 for the empty string and at least 1 for any other", () => {
    expect(estimate("")).toBe(0);
    for (const value of [" ", "\n", "a", "1", "-", "中", "👍", "\u0000"]) {
      expect(estimate(value), JSON.stringify(value)).toBeGreaterThanOrEqual(1);
    }
  });

  it("counts Han, kana and Hangul per character, where the default counts one 'word'", () => {
    const han = "会话历史的压缩和分支".repeat(10); // 100 characters, no spaces
    expect(estimate(han)).toBe(Math.ceil(100 * MULTILINGUAL_TOKEN_WEIGHTS.han));
    expect(estimate(han)).toBeGreaterThan(2 * estimateStringTokens(han));
    expect(estimate("セッション".repeat(20))).toBe(
      Math.ceil(
        100 * MULTILINGUAL_TOKEN_WEIGHTS.kana +
          MULTILINGUAL_TOKEN_WEIGHTS.kanaRuns,
      ),
    );
    expect(estimate("세션".repeat(50))).toBe(
      Math.ceil(100 * MULTILINGUAL_TOKEN_WEIGHTS.hangul),
    );
  });

  it("grows with the number of words, not their spelling, for English prose", () => {
    const short = "The quick brown fox jumps over the lazy dog.";
    expect(estimate(short)).toBeGreaterThanOrEqual(9);
    expect(estimate(short)).toBeLessThanOrEqual(13);
    expect(estimate(`${short} ${short}`)).toBeGreaterThan(estimate(short));
  });

  it("splits camelCase identifiers and charges accented Latin letters", () => {
    expect(estimate("getMessageCount")).toBeGreaterThan(
      estimate("getmessagecount"),
    );
    expect(estimate("zażółć gęślą jaźń")).toBeGreaterThan(
      estimate("zazolc gesla jazn"),
    );
  });

  it("charges long runs of a repeated symbol far less than distinct symbols", () => {
    const separator = "═".repeat(46);
    expect(estimate(separator)).toBeLessThan(12);
    expect(estimate("→←↑↓⇒⇐⇑⇓".repeat(6))).toBeGreaterThan(40);
  });

  it("never decreases when text is appended or prepended, and stays near-additive", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }),
        fc.string({ unit: "binary" }),
        (a, b) => {
          const joined = estimate(a + b);
          expect(joined).toBeGreaterThanOrEqual(
            Math.max(estimate(a), estimate(b)),
          );
          expect(joined).toBeLessThanOrEqual(estimate(a) + estimate(b) + 1);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("handles lone surrogates and astral characters without throwing", () => {
    expect(estimate("\ud800")).toBe(
      Math.ceil(MULTILINGUAL_TOKEN_WEIGHTS.symbols),
    );
    expect(estimate("a\udc00b")).toBeGreaterThanOrEqual(1);
    expect(estimate("𠀀𠀁𠀂")).toBe(
      Math.ceil(3 * MULTILINGUAL_TOKEN_WEIGHTS.han),
    );
  });

  // Linear time is the benchmarks' to measure (no duration asserted here: CI machines are loaded);
  // a quadratic scan of a megabyte would still run into the test's timeout.
  it("estimates a megabyte of mixed text", () => {
    const chunk = 'Hello, мир! 会话 セッション 123 {"a": [1, 2]}\n    ';
    const big = chunk.repeat(Math.ceil(1_000_000 / chunk.length));
    const tokens = estimate(big);
    expect(tokens).toBeGreaterThan(big.length / 4);
  });

  it("exposes frozen, non-negative weights", () => {
    expect(Object.isFrozen(MULTILINGUAL_TOKEN_WEIGHTS)).toBe(true);
    for (const weight of Object.values(MULTILINGUAL_TOKEN_WEIGHTS)) {
      expect(weight).toBeGreaterThanOrEqual(0);
    }
  });
});

describe("estimateMessageTokensMultilingual", () => {
  it("follows the per-part rules of docs/behavior/overlays.md with the multilingual string estimate", () => {
    const messages: SessionMessage[] = [
      { id: "u", role: "user", parts: [text("你好，世界")] },
      {
        id: "a",
        role: "assistant",
        parts: [
          { type: "reasoning", reasoning: "thinking" },
          {
            type: "tool-search",
            toolCallId: "c1",
            state: "output-available",
            input: { q: "会话" },
            output: "found 3",
          },
          {
            type: "dynamic-tool",
            toolName: "x",
            toolCallId: "c2",
            input: "in",
            result: { ok: true },
          },
          {
            type: "file",
            mediaType: "image/png",
            url: "data:image/png;base64,AAAA",
          },
          { type: "data-note", result: [1, 2, 3] },
        ],
      },
    ];
    expect(estimateMessageTokensMultilingual(messages)).toBe(
      4 +
        estimate("你好，世界") +
        4 +
        estimate("thinking") +
        estimate('{"q":"会话"}') +
        estimate("found 3") +
        estimate("in") +
        estimate('{"ok":true}') +
        estimate("[1,2,3]"),
    );
    expect(estimateMessageTokensMultilingual([])).toBe(0);
  });
});

describe("multilingualTokenCounter", () => {
  it("counts the history plus the system prompt, not the blocks a second time", async () => {
    const messages: SessionMessage[] = [
      { id: "u", role: "user", parts: [text("Привет! Как дела?")] },
    ];
    const systemPrompt = "You are helpful.";
    const counter = multilingualTokenCounter();
    const count = await counter({
      messages,
      systemPrompt,
      contextBlocks: [{ label: "soul", content: systemPrompt } as ContextBlock],
    });
    expect(count).toBe(
      estimateMessageTokensMultilingual(messages) + estimate(systemPrompt),
    );
  });
});
