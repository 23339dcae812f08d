import { Session } from "../../session/facade/session.js";
import type { SessionEvent } from "../../session/facade/status.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import { createCompactFunction } from "../../utils/compaction/compact-function.js";
import { caught, messageOf, summarizeError } from "../helpers.js";
import type { Suite } from "../suite.js";

/**
 * `session.compact()`, auto-compaction, provenance and undo, and the row-size limit, through the
 * Session on every backend (docs/behavior/overlays.md). Summaries come from a fake summarizer
 * that records its prompts.
 */
export function sessionCompactionSpec(rootSuite: Suite): void {
  const suite = rootSuite.withLayer("session");
  const { expect } = suite;

  suite.describe("session compaction", () => {
    suite.it(
      "compact() without a compaction function throws the exact error",
      async ({ provider }) => {
        const error = await caught(() =>
          Session.create(provider("a")).compact(),
        );
        expect(summarizeError(error)).toEqual({
          kind: "Error",
          code: "COMPACTION_NOT_CONFIGURED",
          marked: true,
        });
        expect(messageOf(error)).toBe(
          "No compaction function registered. Call onCompaction() first.",
        );
      },
    );

    suite.it(
      "compact() under a requestKey stores one overlay however often it is repeated, from this Session or another (fake summarizer)",
      async ({ provider }) => {
        const summarizer = fakeSummarizer();
        const compactFunction = createCompactFunction({
          summarize: summarizer.summarize,
          protectHead: 2,
          tailTokenBudget: 30,
          minTailMessages: 2,
        });
        const session = Session.create(provider("a")).onCompaction(
          compactFunction,
        );
        await appendChain(session, 10);
        const first = await session.compact(null, { requestKey: "nightly-1" });
        expect([
          first?.fromMessageId,
          first?.toMessageId,
          first?.summary,
        ]).toEqual(["m3", "m8", "summary 1"]);
        const [overlay] = await session.getCompactions();
        expect(overlay!.meta?.requestKey).toBe("nightly-1");
        // Repeated here and from a new Session over the same store: the first overlay, and the
        // summarizer is not asked again.
        const again = await session.compact(null, { requestKey: "nightly-1" });
        const elsewhere = await Session.create(provider("a"))
          .onCompaction(compactFunction)
          .compact(null, { requestKey: "nightly-1" });
        expect([again, elsewhere]).toEqual([first, first]);
        expect(summarizer.prompts).toHaveLength(1);
        expect(await session.getCompactions()).toHaveLength(1);
        // Two repeats at once from one Session: still one overlay.
        await appendChain(session, 10, 11);
        const racing = await Promise.all([
          session.compact(null, { requestKey: "nightly-2" }),
          session.compact(null, { requestKey: "nightly-2" }),
        ]);
        expect(racing[1]).toEqual(racing[0]);
        expect(await session.getCompactions()).toHaveLength(2);
        expect(summarizer.prompts).toHaveLength(2);
        const error = await caught(() =>
          session.compact(null, { requestKey: "" }),
        );
        expect(summarizeError(error)).toEqual({
          kind: "Error",
          code: "INVALID_ARGUMENT",
          marked: true,
        });
      },
    );

    suite.it(
      "compacts the middle with a fake summarizer, keeping head and tail, with provenance",
      async ({ provider }) => {
        const summarizer = fakeSummarizer();
        const session = Session.create(provider("a")).onCompaction(
          createCompactFunction({
            summarize: summarizer.summarize,
            protectHead: 2,
            tailTokenBudget: 30,
            minTailMessages: 2,
            label: "fake-summarizer",
          }),
        );
        await appendChain(session, 10);
        const result = await session.compact();
        expect(result).toEqual({
          fromMessageId: "m3",
          toMessageId: "m8",
          summary: "summary 1",
          meta: { summarizer: "fake-summarizer" },
        });
        expect(ids(await session.getHistory())).toEqual([
          "m1",
          "m2",
          `compaction_${(await session.getCompactions())[0]!.id}`,
          "m9",
          "m10",
        ]);
        const [overlay] = await session.getCompactions();
        expect(overlay!.meta!.summarizer).toBe("fake-summarizer");
        expect(overlay!.meta!.coveredMessages).toBe(6);
        expect(overlay!.meta!.tokensBefore! > overlay!.meta!.tokensAfter!).toBe(
          true,
        );
        expect(summarizer.prompts).toHaveLength(1);
        expect(summarizer.prompts[0]!).toContain("message 3");
        expect(summarizer.prompts[0]!.includes("message 1 ")).toBe(false);
        expect(await session.getPathLength()).toBe(10);
      },
    );

    suite.it(
      "an iterative compaction receives the previous summary and starts where it started",
      async ({ provider }) => {
        const summarizer = fakeSummarizer();
        const session = Session.create(provider("a")).onCompaction(
          createCompactFunction({
            summarize: summarizer.summarize,
            protectHead: 1,
            tailTokenBudget: 20,
            minTailMessages: 2,
          }),
        );
        await appendChain(session, 8);
        const first = await session.compact();
        await appendChain(session, 8, 9);
        const second = await session.compact();
        expect(second!.fromMessageId).toBe(first!.fromMessageId);
        expect(summarizer.prompts[1]!).toContain("PREVIOUS SUMMARY:");
        expect(summarizer.prompts[1]!).toContain("summary 1");
        const view = await session.getHistory();
        expect(
          view.filter((message) => message.id.startsWith("compaction_")),
        ).toHaveLength(1);
        expect(view[1]!.parts[0]!.text).toBe("summary 2");
        expect(await session.getCompactions()).toHaveLength(2);
      },
    );

    suite.it(
      "undoing an iterative compaction brings the previous summary back",
      async ({ provider }) => {
        const summarizer = fakeSummarizer();
        const session = Session.create(provider("a")).onCompaction(
          createCompactFunction({
            summarize: summarizer.summarize,
            protectHead: 1,
            tailTokenBudget: 20,
            minTailMessages: 2,
          }),
        );
        await appendChain(session, 8);
        await session.compact();
        await appendChain(session, 8, 9);
        await session.compact();
        const newest = (await session.getCompactions())[1]!;
        expect(await session.removeCompaction(newest.id)).toBe(true);
        expect((await session.getHistory())[1]!.parts[0]!.text).toBe(
          "summary 1",
        );
      },
      { requires: { deleteCompaction: true } },
    );

    suite.it(
      "ignores a result whose range is not on the branch, storing nothing",
      async ({ provider }) => {
        const results = [
          { fromMessageId: "nope", toMessageId: "m3", summary: "x" },
          { fromMessageId: "m3", toMessageId: "m2", summary: "x" },
          { fromMessageId: "m2", toMessageId: "elsewhere", summary: "x" },
        ];
        const session = Session.create(provider("a")).onCompaction(async () =>
          results.shift()!,
        );
        await appendChain(session, 4);
        for (let attempt = 0; attempt < 3; attempt++)
          expect(await session.compact()).toBeNull();
        expect(await session.getCompactions()).toEqual([]);
      },
    );

    suite.it(
      "a manual compact() rethrows the summarizer's error after an error event",
      async ({ provider }) => {
        const events: SessionEvent[] = [];
        const session = Session.create(provider("a")).onCompaction(
          createCompactFunction({
            summarize: async () => {
              throw new Error("model unavailable");
            },
            protectHead: 1,
            tailTokenBudget: 1,
          }),
        );
        session.onStatus((event) => events.push(event));
        await appendChain(session, 6);
        const error = await caught(() => session.compact());
        expect(messageOf(error)).toBe("model unavailable");
        expect(events.at(-1)).toEqual({
          type: "cf_agent_session_error",
          error: "model unavailable",
        });
        expect(await session.getCompactions()).toEqual([]);
      },
    );

    suite.it(
      "auto-compacts after an insert over the threshold and announces it",
      async ({ provider }) => {
        const events: SessionEvent[] = [];
        const session = Session.create(provider("a"))
          .onCompaction(
            createCompactFunction({
              summarize: fakeSummarizer().summarize,
              protectHead: 1,
              tailTokenBudget: 20,
            }),
          )
          .compactAfter(60);
        session.onStatus((event) => events.push(event));
        await appendChain(session, 12);
        const overlays = await session.getCompactions();
        expect(overlays.length).toBeGreaterThan(0);
        const phases = events.map((event) =>
          "phase" in event ? event.phase : event.type,
        );
        expect(phases).toContain("compacting");
        const done = events.find(
          (event) => "compacted" in event && event.compacted,
        );
        expect(done !== undefined).toBe(true);
        expect(
          events.every(
            (event) =>
              !("tokenThreshold" in event) || event.tokenThreshold === 60,
          ),
        ).toBe(true);
        expect(await session.getPathLength()).toBe(12);
      },
    );

    suite.it(
      "an auto-compaction failure keeps the message, calls onCompactionError once, and never throws",
      async ({ provider }) => {
        const failures: unknown[] = [];
        const session = Session.create(provider("a"))
          .onCompaction(async () => {
            throw new Error("summarizer down");
          })
          .compactAfter(0)
          .onCompactionError((error) => {
            failures.push(error);
            throw new Error("the handler itself fails");
          });
        await session.appendMessage(text("m1", "hello there"));
        expect(ids(await session.getHistory())).toEqual(["m1"]);
        expect(failures.map(messageOf)).toEqual(["summarizer down"]);
        // A duplicate append inserts nothing, so it runs no check.
        await session.appendMessage(text("m1", "hello there"));
        expect(failures).toHaveLength(1);
      },
    );

    suite.it(
      "uses the custom token counter for the decision and hands it to the compaction function",
      async ({ provider }) => {
        const seen: unknown[] = [];
        const counter = ({ messages }: { messages: SessionMessage[] }) =>
          messages.length * 100;
        const session = Session.create(provider("a"))
          .onCompaction(async (_messages, context) => {
            seen.push(context?.tokenCounter);
            return null;
          })
          .compactAfter(250, { tokenCounter: counter });
        await appendChain(session, 3);
        expect(seen).toEqual([counter]);
      },
    );

    suite.it(
      "runs one compaction at a time; a second call waits for the first",
      async ({ provider }) => {
        let active = 0;
        let maxActive = 0;
        let calls = 0;
        const session = Session.create(provider("a")).onCompaction(async () => {
          active++;
          maxActive = Math.max(maxActive, active);
          calls++;
          await new Promise((resolve) => setTimeout(resolve, 5));
          active--;
          return null;
        });
        await appendChain(session, 3);
        await Promise.all([
          session.compact(),
          session.compact(),
          session.compact(),
        ]);
        expect(calls).toBe(3);
        expect(maxActive).toBe(1);
      },
    );

    suite.it(
      "enforces the row-size limit on append and update",
      async ({ provider }) => {
        const session = new Session(provider("a"), { maxRowBytes: 3000 });
        const big = "x".repeat(5000);
        await session.appendMessage({
          id: "a1",
          role: "assistant",
          parts: [
            {
              type: "tool-fetch",
              toolCallId: "c1",
              state: "output-available",
              input: {},
              output: big,
            },
          ],
        });
        const stored = (await session.getMessage("a1"))!;
        expect(JSON.stringify(stored).length < 3000).toBe(true);
        expect(
          (stored.metadata as { compactedToolOutputs?: string[] })
            .compactedToolOutputs,
        ).toEqual(["c1"]);
        await session.updateMessage(text("a1", big));
        expect(
          JSON.stringify(await session.getMessage("a1")).length < 3000,
        ).toBe(true);
        const unlimited = new Session(provider("b"), { maxRowBytes: false });
        await unlimited.appendMessage(text("u1", big));
        expect((await unlimited.getMessage("u1"))!.parts[0]!.text).toBe(big);
      },
    );
  });
}

// --- Internal helpers ---

function text(id: string, value: string): SessionMessage {
  return { id, role: "user", parts: [{ type: "text", text: value }] };
}

function ids(messages: SessionMessage[]): string[] {
  return messages.map((message) => message.id);
}

async function appendChain(
  session: Session,
  count: number,
  first = 1,
): Promise<void> {
  for (let index = first; index < first + count; index++) {
    await session.appendMessage({
      id: `m${index}`,
      role: index % 2 ? "user" : "assistant",
      parts: [
        { type: "text", text: `message ${index} with a few words of content` },
      ],
    });
  }
}

/** A fake summarizer: answers `summary <n>` and records every prompt it gets. */
function fakeSummarizer(): {
  prompts: string[];
  summarize: (prompt: string) => Promise<string>;
} {
  const prompts: string[] = [];
  return {
    prompts,
    summarize: async (prompt) => {
      prompts.push(prompt);
      return `summary ${prompts.length}`;
    },
  };
}
