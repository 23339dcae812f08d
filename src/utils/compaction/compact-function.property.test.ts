// Property: createCompactFunction never separates a tool call from its results, whatever the
// transcript shape, and only ever narrows the range that docs/behavior/overlays.md alone would pick.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isCompactionMessage } from "../../session/tree/apply-compactions.js";
import { fakeSummarizer } from "../__fixtures__/transcripts.js";
import {
  splitGroups,
  transcriptArbitrary,
} from "../__fixtures__/random-transcripts.js";
import { toolCallGroups } from "../tool-calls.js";
import { alignBoundaryForward } from "./align.js";
import { createCompactFunction } from "./compact-function.js";
import { findTailCutByTokens } from "./tail-cut.js";

const optionsArbitrary = fc.record({
  protectHead: fc.integer({ min: 0, max: 5 }),
  minTailMessages: fc.integer({ min: 0, max: 4 }),
  tailTokenBudget: fc.integer({ min: 0, max: 150 }),
});

describe("createCompactFunction tool-pair guarantee (property, with a fake summarizer that records prompts)", () => {
  it("never leaves a call inside the summarized range with a result outside it, or the reverse", async () => {
    // How often the generator hits the interesting cases, so the property cannot pass vacuously.
    const seen = { compacted: 0, repaired: 0, wholeGroupsInside: 0 };
    await fc.assert(
      fc.asyncProperty(
        transcriptArbitrary,
        optionsArbitrary,
        async (messages, options) => {
          const fake = fakeSummarizer();
          const result = await createCompactFunction({
            ...options,
            summarize: fake.summarize,
          })(messages);

          // The range docs/behavior/overlays.md alone would pick, with the same heuristic counter.
          const start = alignBoundaryForward(messages, options.protectHead);
          const end = findTailCutByTokens(
            messages,
            start,
            options.tailTokenBudget,
            options.minTailMessages,
          );
          const specMiddle = messages
            .slice(start, end)
            .filter((message) => !isCompactionMessage(message));
          const specIsClean =
            specMiddle.length > 0 &&
            splitGroups(
              messages,
              messages.indexOf(specMiddle[0]!),
              messages.indexOf(specMiddle.at(-1)!),
            ).length === 0;
          const tooShort =
            messages.length <= options.protectHead + options.minTailMessages;

          if (result === null) {
            expect(tooShort || !specIsClean).toBe(true);
            expect(fake.prompts).toHaveLength(0);
            return;
          }
          const from = messages.findIndex(
            (message) => message.id === result.fromMessageId,
          );
          const to = messages.findIndex(
            (message) => message.id === result.toMessageId,
          );
          expect(from).toBeGreaterThanOrEqual(0);
          expect(to).toBeGreaterThanOrEqual(from);
          expect(isCompactionMessage(messages[from])).toBe(false);
          expect(isCompactionMessage(messages[to])).toBe(false);
          // The guarantee itself.
          expect(splitGroups(messages, from, to)).toEqual([]);
          // Head and tail stay protected: the range only narrows what alignment alone picks.
          expect(from).toBeGreaterThanOrEqual(start);
          expect(to).toBeLessThan(end);
          expect(to).toBeLessThan(messages.length - 1);
          // Where alignment alone already keeps groups whole, the result is exactly the aligned range.
          if (specIsClean) {
            expect(result.fromMessageId).toBe(specMiddle[0]!.id);
            expect(result.toMessageId).toBe(specMiddle.at(-1)!.id);
          }
          expect(fake.prompts).toHaveLength(1);
          seen.compacted++;
          if (!specIsClean) seen.repaired++;
          const wholeGroupInside = [...toolCallGroups(messages).values()].some(
            (indices) =>
              indices.length > 1 &&
              indices[0]! >= from &&
              indices.at(-1)! <= to,
          );
          if (wholeGroupInside) seen.wholeGroupsInside++;
        },
      ),
      { numRuns: 1000 },
    );
    // About 80%, 45% and 50% of the 1000 runs in practice.
    expect(seen.compacted).toBeGreaterThan(500);
    expect(seen.repaired).toBeGreaterThan(200);
    expect(seen.wholeGroupsInside).toBeGreaterThan(250);
  });
});
