import { ArborTypeError } from "../../session/errors/index.js";
import { isCompactionMessage } from "../../session/tree/apply-compactions.js";
import type {
  CompactContext,
  CompactResult,
  MaybePromise,
  SessionMessage,
} from "../../session/contracts/types.js";
import { estimateMessageTokens } from "../tokens/estimate.js";
import { alignBoundaryForward } from "./align.js";
import { buildSummaryPrompt, computeSummaryBudget } from "./summary-prompt.js";
import {
  DEFAULT_MIN_TAIL_MESSAGES,
  defaultTailTokenBudget,
  finishTailCut,
  takesTailMessage,
} from "./tail-cut.js";
import { keepToolPairsTogether } from "./tool-pair-range.js";

const DEFAULT_PROTECT_HEAD = 3;

/** Counts the tokens of some messages; called with one message at a time by the tail walk. */
export type CompactTokenCounter = (
  messages: SessionMessage[],
) => MaybePromise<number>;

/** Options of `createCompactFunction` (docs/behavior/overlays.md). */
export interface CompactOptions {
  /** Turns a prompt into a summary, for example an LLM call. A blank answer means "no compaction". */
  summarize: (prompt: string) => Promise<string>;
  /** Messages at the start that are never summarized. Default 3. */
  protectHead?: number;
  /**
   * Token budget of the protected tail. Default 20000, or half the Session's `compactAfter`
   * threshold (`context.threshold`) when that is smaller.
   */
  tailTokenBudget?: number;
  /** Messages at the end that are never summarized, when the head allows. Default 2. */
  minTailMessages?: number;
  /** Per-message counter; wins over the Session's counter and the heuristic. */
  tokenCounter?: CompactTokenCounter;
  /** Names the summarizer in the overlay's provenance (`meta.summarizer`, docs/behavior/overlays.md). */
  label?: string;
}

// Declared with the contracts so the Session can name it without importing utils.
export type { CompactResult };

/** What `createCompactFunction` returns and `session.onCompaction()` takes. */
export type CompactFunction = (
  messages: SessionMessage[],
  context?: CompactContext,
) => Promise<CompactResult | null>;

/**
 * Builds the standard compaction function (docs/behavior/overlays.md): keep a protected head and a token-budgeted
 * tail, summarize the middle with `summarize`, extending the previous summary when one is present.
 * Beyond the reference, a tool call and its results are never split between the summarized range
 * and the messages kept verbatim, in any transcript shape.
 *
 * @example
 * ```ts
 * import { createCompactFunction } from "arbor-memory/utils";
 *
 * session.onCompaction(
 *   createCompactFunction({
 *     summarize: async (prompt) => (await generateText({ model, prompt })).text,
 *     label: "gpt-4o-mini",
 *   }),
 * );
 * ```
 */
export function createCompactFunction(
  options: CompactOptions,
): CompactFunction {
  if (typeof options?.summarize !== "function")
    throw new ArborTypeError(
      "INVALID_ARGUMENT",
      "[arbor] [createCompactFunction] Missing option `summarize`: pass a function that turns a prompt into a summary.",
    );
  const protectHead = options.protectHead ?? DEFAULT_PROTECT_HEAD;
  const minTailMessages = options.minTailMessages ?? DEFAULT_MIN_TAIL_MESSAGES;

  return async (messages, context) => {
    const n = messages.length;
    if (n <= protectHead + minTailMessages) return null;
    const count = perMessageCounter(options, context);
    const tailTokenBudget =
      options.tailTokenBudget ?? defaultTailTokenBudget(context?.threshold);

    const start = alignBoundaryForward(messages, protectHead);
    let tokens = 0;
    let tokenCut = n;
    for (let index = n - 1; index >= start; index--) {
      const tokensOfMessage = await count(messages[index]!);
      if (!takesTailMessage(n, index, tokens, tokensOfMessage, tailTokenBudget))
        break;
      tokens += tokensOfMessage;
      tokenCut = index;
    }
    const end = finishTailCut(messages, start, tokenCut, minTailMessages);
    const range = keepToolPairsTogether(messages, { start, end });
    if (range.end <= range.start) return null;

    const middle = messages
      .slice(range.start, range.end)
      .filter((message) => !isCompactionMessage(message));
    if (middle.length === 0) return null;

    const summary = await options.summarize(
      buildSummaryPrompt(
        middle,
        previousSummaryOf(messages),
        computeSummaryBudget(middle),
      ),
    );
    if (typeof summary !== "string" || summary.trim() === "") return null;
    const result: CompactResult = {
      fromMessageId: middle[0]!.id,
      toMessageId: middle.at(-1)!.id,
      summary,
    };
    if (options.label !== undefined)
      result.meta = { summarizer: options.label };
    return result;
  };
}

// --- Internal helpers ---

function perMessageCounter(
  options: CompactOptions,
  context: CompactContext | undefined,
): (message: SessionMessage) => Promise<number> {
  const { tokenCounter } = options;
  const sessionCounter = context?.tokenCounter;
  if (tokenCounter)
    return async (message) => finiteCount(await tokenCounter([message]));
  if (sessionCounter)
    return async (message) =>
      finiteCount(
        await sessionCounter({
          messages: [message],
          systemPrompt: "",
          contextBlocks: [],
        }),
      );
  return async (message) => estimateMessageTokens([message]);
}

/** A counter's answer as a usable count: non-finite or negative answers count as 0. */
function finiteCount(value: number): number {
  return Number.isFinite(value) ? Math.max(0, value) : 0;
}

function previousSummaryOf(messages: readonly SessionMessage[]): string | null {
  const summary = messages.find(isCompactionMessage);
  if (!summary) return null;
  return summary.parts
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join("\n");
}
