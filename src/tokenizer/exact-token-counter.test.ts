import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import type { SessionMessage } from "../session/contracts/types.js";
import {
  countExactMessageTokens,
  countExactTokens,
  exactTokenCounter,
} from "./exact-token-counter.js";

const text = (value: string) => ({ type: "text", text: value });

describe("countExactTokens", () => {
  it("counts o200k_base tokens", () => {
    expect(countExactTokens("")).toBe(0);
    expect(countExactTokens("Hello world")).toBe(2);
    expect(countExactTokens("会话历史的压缩和分支")).toBe(
      countTokens("会话历史的压缩和分支"),
    );
  });

  it("counts special-token markers as plain text instead of throwing", () => {
    expect(countExactTokens("a <|endoftext|> b")).toBeGreaterThan(3);
  });
});

describe("countExactMessageTokens and exactTokenCounter", () => {
  const messages: SessionMessage[] = [
    { id: "u", role: "user", parts: [text("Привет!")] },
    {
      id: "a",
      role: "assistant",
      parts: [
        text("Здравствуйте."),
        {
          type: "tool-lookup",
          toolCallId: "c1",
          state: "output-available",
          input: { id: 7 },
          output: { name: "Ana" },
        },
        { type: "file", mediaType: "image/png", url: "data:," },
      ],
    },
  ];

  it("applies docs/behavior/overlays.md's per-part rules with exact counts", () => {
    expect(countExactMessageTokens(messages)).toBe(
      4 +
        countTokens("Привет!") +
        4 +
        countTokens("Здравствуйте.") +
        countTokens('{"id":7}') +
        countTokens('{"name":"Ana"}'),
    );
  });

  it("is a SessionTokenCounter: history plus system prompt", async () => {
    const count = await exactTokenCounter()({
      messages,
      systemPrompt: "You are helpful.",
      contextBlocks: [],
    });
    expect(count).toBe(
      countExactMessageTokens(messages) + countTokens("You are helpful."),
    );
  });
});

describe("load path", () => {
  // arbor-memory/session and arbor-memory/utils must stay loadable in workerd without gpt-tokenizer.
  it.each(["session", "utils"])(
    "nothing reachable from src/%s/index.ts imports gpt-tokenizer or src/tokenizer",
    (entry) => {
      const sourceRoot = resolve(import.meta.dirname, "..");
      const seen = new Set<string>();
      const offenders: string[] = [];
      const visit = (file: string) => {
        if (seen.has(file)) return;
        seen.add(file);
        const source = readFileSync(file, "utf8");
        for (const match of source.matchAll(
          /(?:import|export)[^'"]*?from\s*["']([^"']+)["']|import\s*\(?\s*["']([^"']+)["']/g,
        )) {
          const specifier = match[1] ?? match[2]!;
          const target = specifier.startsWith(".")
            ? resolve(dirname(file), specifier).replace(/\.js$/, ".ts")
            : specifier;
          if (
            target.startsWith("gpt-tokenizer") ||
            target.startsWith(resolve(sourceRoot, "tokenizer"))
          ) {
            offenders.push(
              `${file.slice(sourceRoot.length + 1)} → ${specifier}`,
            );
          } else if (specifier.startsWith(".")) {
            visit(target);
          }
        }
      };
      visit(resolve(sourceRoot, entry, "index.ts"));
      expect(seen.size).toBeGreaterThan(3);
      expect(offenders).toEqual([]);
    },
  );
});
