// Automatic compaction with a small `compactAfter` threshold, on a real SQLite session.
// Regression: with a threshold at or below the default protected tail (20,000 tokens), the tail
// covered the whole history, so nothing was ever compacted and the warning blamed `tokenCounter`.
// A new store counts with the multilingual estimate (docs/token-estimation.md), so these do too.
import { afterEach, describe, expect, it, vi } from "vitest";
import { openSqlite } from "../../sqlite/index.js";
import { createCompactFunction } from "../../utils/index.js";
import { estimateMessageTokensMultilingual as estimateMessageTokens } from "../tokens/multilingual-tokens.js";
import { Session } from "../facade/session.js";
import type { SessionMessage } from "../contracts/types.js";

/** ~275 estimated tokens per message: 1,600 characters. */
const message = (index: number): SessionMessage => ({
  id: `m${index}`,
  role: index % 2 === 0 ? "user" : "assistant",
  parts: [{ type: "text", text: `${index} `.padEnd(1_600, "x") }],
});

function fakeSummarizer() {
  const prompts: string[] = [];
  return {
    prompts,
    summarize: async (prompt: string) => {
      prompts.push(prompt);
      return "## Topic\nA fake summary.";
    },
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("compactAfter with a small threshold", () => {
  it("a fake summarizer is called once the history passes compactAfter(6000), and the estimate falls below it", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const summarizer = fakeSummarizer();
    const session = Session.create(openSqlite(":memory:"))
      .forSession("small-context")
      .onCompaction(createCompactFunction({ summarize: summarizer.summarize }))
      .compactAfter(6_000);

    const appended: SessionMessage[] = [];
    while (estimateMessageTokens(appended) <= 6_000) {
      const next = message(appended.length);
      appended.push(next);
      await session.appendMessage(next);
      if (estimateMessageTokens(appended) <= 6_000) {
        expect(await session.getCompactions()).toEqual([]);
      }
    }

    const overlays = await session.getCompactions();
    expect(overlays).toHaveLength(1);
    expect(summarizer.prompts).toHaveLength(1);
    // The protected tail is half the threshold: what stays verbatim fits in 3,000 tokens.
    const history = await session.getHistory();
    const tail = history.slice(
      history.findIndex((entry) => entry.id.startsWith("compaction_")) + 1,
    );
    expect(estimateMessageTokens(tail)).toBeLessThanOrEqual(3_000);
    expect(estimateMessageTokens(history)).toBeLessThan(6_000);
    expect(overlays[0]!.meta?.tokensAfter).toBeLessThan(6_000);
    expect(warn).not.toHaveBeenCalled();
  });

  it("an explicit tailTokenBudget still wins, and the warning names the option and the value to use", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const session = Session.create(openSqlite(":memory:"))
      .onCompaction(
        createCompactFunction({
          summarize: fakeSummarizer().summarize,
          tailTokenBudget: 20_000,
        }),
      )
      .compactAfter(6_000);
    for (let index = 0; index < 25; index++)
      await session.appendMessage(message(index));

    expect(await session.getCompactions()).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(1);
    const text = String(warn.mock.calls[0]![0]);
    expect(text).toContain("tailTokenBudget");
    expect(text).toContain("3000");
    expect(text).not.toContain("consider passing a tokenCounter");
  });
});
