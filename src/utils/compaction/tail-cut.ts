import type { SessionMessage } from "../../session/contracts/types.js";
import { estimateMessageTokens } from "../tokens/estimate.js";
import { alignBoundaryBackward } from "./align.js";

/** Default token budget of the protected tail (docs/behavior/overlays.md). */
export const DEFAULT_TAIL_TOKEN_BUDGET = 20_000;
/** Default minimum number of messages in the protected tail (docs/behavior/overlays.md). */
export const DEFAULT_MIN_TAIL_MESSAGES = 2;
/** With a `compactAfter` threshold, the default tail is at most this share of it. */
export const TAIL_SHARE_OF_THRESHOLD = 0.5;

/**
 * The tail budget when the caller set none: `DEFAULT_TAIL_TOKEN_BUDGET`, or half the
 * `compactAfter` threshold when that is smaller. A tail as large as the threshold would keep
 * every message verbatim, so a session with a small context (say `compactAfter(6000)`) would
 * never compact; half leaves the other half for the head, the summary and the system prompt.
 */
export function defaultTailTokenBudget(threshold?: number): number {
  if (threshold === undefined || !Number.isFinite(threshold) || threshold < 0)
    return DEFAULT_TAIL_TOKEN_BUDGET;
  return Math.min(
    DEFAULT_TAIL_TOKEN_BUDGET,
    Math.floor(threshold * TAIL_SHARE_OF_THRESHOLD),
  );
}

/**
 * The first index of the protected tail, by the heuristic estimate (docs/behavior/overlays.md step 4): walks back from
 * the last message while the tail fits `tailTokenBudget` (the last message is always taken), keeps at
 * least `minTailMessages` when the head allows, then aligns backward so a result stays with its call.
 *
 * @param headEnd the first index after the protected head (`alignBoundaryForward(messages, protectHead)`).
 */
export function findTailCutByTokens(
  messages: readonly SessionMessage[],
  headEnd: number,
  tailTokenBudget: number = DEFAULT_TAIL_TOKEN_BUDGET,
  minTailMessages: number = DEFAULT_MIN_TAIL_MESSAGES,
): number {
  let tokens = 0;
  let tokenCut = messages.length;
  for (let index = messages.length - 1; index >= headEnd; index--) {
    const count = estimateMessageTokens([messages[index]!]);
    if (
      !takesTailMessage(messages.length, index, tokens, count, tailTokenBudget)
    )
      break;
    tokens += count;
    tokenCut = index;
  }
  return finishTailCut(messages, headEnd, tokenCut, minTailMessages);
}

/** Whether the tail walk takes the message at `index`: always the last one, others while they fit. */
export function takesTailMessage(
  length: number,
  index: number,
  tokensSoFar: number,
  count: number,
  tailTokenBudget: number,
): boolean {
  return index === length - 1 || tokensSoFar + count <= tailTokenBudget;
}

/** Applies `minTailMessages` and backward alignment to the token walk's cut (docs/behavior/overlays.md step 4). */
export function finishTailCut(
  messages: readonly SessionMessage[],
  headEnd: number,
  tokenCut: number,
  minTailMessages: number,
): number {
  const minCut = messages.length - minTailMessages;
  const cut = minCut >= headEnd ? Math.min(tokenCut, minCut) : tokenCut;
  return alignBoundaryBackward(messages, cut);
}
