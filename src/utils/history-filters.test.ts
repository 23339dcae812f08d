import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SessionMessage } from "../session/contracts/types.js";
import {
  splitGroups,
  transcriptArbitrary,
} from "./__fixtures__/random-transcripts.js";
import {
  chat,
  summaryMessage,
  toolCall,
  toolResult,
  user,
} from "./__fixtures__/transcripts.js";
import {
  composeHistoryFilters,
  keepLastMessages,
  keepWithinTokenBudget,
} from "./history-filters.js";
import { isCompactionMessage } from "../session/tree/apply-compactions.js";

const ids = (messages: SessionMessage[]) =>
  messages.map((message) => message.id);

describe("keepLastMessages", () => {
  it("keeps the last n messages in order", () => {
    expect(ids(keepLastMessages(20)(chat(25)) as SessionMessage[])).toEqual(
      ids(chat(25).slice(5)),
    );
    expect(keepLastMessages(30)(chat(3))).toEqual(chat(3));
    expect(keepLastMessages(0)(chat(3))).toEqual([]);
  });

  it("keeps the compaction summary before the suffix unless told not to", () => {
    const messages = [
      ...chat(3),
      summaryMessage("o1", "earlier"),
      ...chat(25).slice(3),
    ];
    expect(ids(keepLastMessages(20)(messages) as SessionMessage[])).toEqual([
      "compaction_o1",
      ...ids(chat(25).slice(5)),
    ]);
    expect(
      ids(
        keepLastMessages(20, { keepSummary: false })(
          messages,
        ) as SessionMessage[],
      ),
    ).toEqual(ids(chat(25).slice(5)));
    // A summary already inside the suffix is not repeated.
    expect(ids(keepLastMessages(22)(messages) as SessionMessage[])[0]).toBe(
      "compaction_o1",
    );
    expect(
      (keepLastMessages(22)(messages) as SessionMessage[]).filter(
        isCompactionMessage,
      ),
    ).toHaveLength(1);
  });

  it("keeps a call whose result would otherwise start the result", () => {
    const messages = [
      user("u0"),
      toolCall("a1", { callId: "c1" }, { callId: "c2" }),
      toolResult("r2", { callId: "c1" }),
      toolResult("r3", { callId: "c2" }),
      user("u4"),
    ];
    expect(ids(keepLastMessages(2)(messages) as SessionMessage[])).toEqual([
      "a1",
      "r2",
      "r3",
      "u4",
    ]);
  });
});

describe("keepWithinTokenBudget", () => {
  it("keeps the longest suffix that fits, at least the last message", async () => {
    // chat() messages are 11 heuristic tokens each.
    expect(ids(await keepWithinTokenBudget(33)(chat(10)))).toEqual([
      "m7",
      "m8",
      "m9",
    ]);
    expect(ids(await keepWithinTokenBudget(0)(chat(10)))).toEqual(["m9"]);
    expect(await keepWithinTokenBudget(10)([])).toEqual([]);
  });

  it("counts with the given counter, one message at a time", async () => {
    const seen: number[] = [];
    const filter = keepWithinTokenBudget(5, {
      tokenCounter: (messages) => {
        seen.push(messages.length);
        return 1;
      },
    });
    expect(await filter(chat(10))).toHaveLength(5);
    expect(seen.every((length) => length === 1)).toBe(true);
  });

  it("drops a result whose call does not fit, unless that would leave nothing", async () => {
    const messages = [
      user("u0"),
      toolCall("a1", { callId: "c1" }),
      user("u2", "meanwhile"),
      toolResult("r3", { callId: "c1" }),
    ];
    const tokens = new Map([
      ["u0", 1],
      ["a1", 100],
      ["u2", 1],
      ["r3", 1],
      ["u4", 1],
    ]);
    const tokenCounter = (batch: SessionMessage[]) => tokens.get(batch[0]!.id)!;
    // r3 and u2 fit, but r3 without a1 would be an orphan and dropping both leaves nothing.
    expect(
      ids(await keepWithinTokenBudget(2, { tokenCounter })(messages)),
    ).toEqual(["a1", "u2", "r3"]);
    expect(
      ids(
        await keepWithinTokenBudget(2, { tokenCounter })([
          ...messages,
          user("u4"),
        ]),
      ),
    ).toEqual(["u4"]);
  });

  it("keeps the call with a lone last result instead of returning nothing", async () => {
    const messages = [
      user("u0"),
      toolCall("a1", { callId: "c1" }),
      toolResult("r2", { callId: "c1" }),
    ];
    expect(ids(await keepWithinTokenBudget(0)(messages))).toEqual(["a1", "r2"]);
  });

  it("keeps the summary in addition to the budget", async () => {
    const messages = [user("u0"), summaryMessage("o1", "earlier"), ...chat(10)];
    expect(ids(await keepWithinTokenBudget(22)(messages))).toEqual([
      "compaction_o1",
      "m8",
      "m9",
    ]);
  });
});

describe("composeHistoryFilters", () => {
  it("runs filters left to right, sync and async alike", async () => {
    const filter = composeHistoryFilters(
      keepLastMessages(5),
      keepWithinTokenBudget(22),
      (messages) => messages.slice(1),
    );
    expect(ids(await filter(chat(10)))).toEqual(["m9"]);
    expect(await composeHistoryFilters()(chat(2))).toEqual(chat(2));
  });
});

describe("history filters never start with an orphaned tool result (property)", () => {
  it("keep a suffix in which every call group is whole", async () => {
    await fc.assert(
      fc.asyncProperty(
        transcriptArbitrary,
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 300 }),
        async (messages, n, budget) => {
          const options = { keepSummary: false };
          const results = [
            keepLastMessages(n, options)(messages) as SessionMessage[],
            await keepWithinTokenBudget(budget, options)(messages),
          ];
          for (const kept of results) {
            const cut = messages.length - kept.length;
            expect(ids(kept)).toEqual(ids(messages.slice(cut)));
            if (kept.length > 0)
              expect(splitGroups(messages, cut, messages.length - 1)).toEqual(
                [],
              );
          }
          if (messages.length > 0)
            expect(results[1]!.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 500 },
    );
  });
});
