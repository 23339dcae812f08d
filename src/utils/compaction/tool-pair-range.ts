import type { SessionMessage } from "../../session/contracts/types.js";
import { toolCallGroups } from "../tool-calls.js";

/** A half-open index range `[start, end)` of messages to summarize. */
export interface SummaryRange {
  start: number;
  end: number;
}

/**
 * Shrinks `[start, end)` until no tool call id has messages both inside and outside it (Arbor's
 * tool-pair guarantee, beyond docs/behavior/overlays.md's adjacent-result alignment). A group that reaches into the
 * head pushes `start` past its last message in the range; one that reaches into the tail pulls `end`
 * before its first message in the range. The range only shrinks, so the protected head and tail
 * only grow. Returns `end <= start` when nothing can be summarized without a split.
 */
export function keepToolPairsTogether(
  messages: readonly SessionMessage[],
  range: SummaryRange,
): SummaryRange {
  let { start, end } = range;
  if (end <= start) return { start, end };
  const groups = [...toolCallGroups(messages).values()].filter(
    (indices) => indices.length > 1,
  );
  // Each move can split another group at the new boundary, so repeat until a pass moves nothing.
  let moved = true;
  while (moved && start < end) {
    moved = false;
    for (const indices of groups) {
      const inside = indices.filter((index) => index >= start && index < end);
      if (inside.length === 0 || inside.length === indices.length) continue;
      if (indices[0]! < start) start = inside.at(-1)! + 1;
      else end = inside[0]!;
      moved = true;
      if (start >= end) break;
    }
  }
  return { start, end };
}
