// Random transcripts for property tests: text turns, synthetic summaries and tool calls whose
// results share the call's part (AI SDK), follow later in separate messages, or never arrive.
import fc from "fast-check";
import type {
  SessionMessage,
  SessionMessagePart,
} from "../../session/contracts/types.js";
import { toolCallGroups } from "../tool-calls.js";

export type Step =
  | { kind: "text"; role: "user" | "assistant"; words: number }
  | { kind: "summary" }
  | {
      kind: "calls";
      /** Per call: messages until its result, or null for a call that never gets one. */
      delays: (number | null)[];
      /** "separate": results in later messages; "combined": AI SDK parts holding both. */
      shape: "separate" | "combined";
      /** Role of the result messages; "assistant" mimics a later update of the same call id. */
      resultRole: "tool" | "user" | "assistant";
      /** Pending results due at once go into one message (true) or one message each. */
      batchResults: boolean;
      dynamic: boolean;
    };

export const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("text" as const),
      role: fc.constantFrom("user" as const, "assistant" as const),
      words: fc.integer({ min: 1, max: 20 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("summary" as const) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("calls" as const),
      delays: fc.array(
        fc.option(fc.integer({ min: 0, max: 8 }), { nil: null, freq: 6 }),
        { minLength: 1, maxLength: 3 },
      ),
      shape: fc.constantFrom("separate" as const, "combined" as const),
      resultRole: fc.constantFrom(
        "tool" as const,
        "user" as const,
        "assistant" as const,
      ),
      batchResults: fc.boolean(),
      dynamic: fc.boolean(),
    }),
  },
);

/** Turns steps into messages; results of separate calls land `delay` messages later, interleaved. */
export function materialize(steps: Step[]): SessionMessage[] {
  const messages: SessionMessage[] = [];
  let pending: {
    callId: string;
    due: number;
    part: SessionMessagePart;
    role: string;
    batch: boolean;
  }[] = [];
  let nextCall = 0;
  const push = (role: string, parts: SessionMessagePart[]) =>
    messages.push({ id: `m${messages.length}`, role, parts });
  const flushDue = () => {
    const due = pending.filter((entry) => entry.due <= messages.length);
    pending = pending.filter((entry) => entry.due > messages.length);
    const batched = due.filter((entry) => entry.batch);
    if (batched.length > 0)
      push(
        batched[0]!.role,
        batched.map((entry) => entry.part),
      );
    for (const entry of due.filter((entry) => !entry.batch))
      push(entry.role, [entry.part]);
  };

  for (const step of steps) {
    if (step.kind === "text") {
      push(step.role, [
        {
          type: "text",
          text: Array.from({ length: step.words }, (_, i) => `w${i}`).join(" "),
        },
      ]);
    } else if (step.kind === "summary") {
      messages.push({
        id: `compaction_o${messages.length}`,
        role: "assistant",
        parts: [{ type: "text", text: "earlier summary" }],
      });
    } else {
      const parts = step.delays.map((delay): SessionMessagePart => {
        const callId = `call${nextCall++}`;
        const base = step.dynamic
          ? { type: "dynamic-tool", toolName: "lookup", toolCallId: callId }
          : { type: "tool-lookup", toolCallId: callId };
        if (step.shape === "combined" && delay !== null)
          return {
            ...base,
            state: "output-available",
            input: { q: callId },
            output: { hits: [callId] },
          };
        if (delay !== null) {
          pending.push({
            callId,
            due: messages.length + 1 + delay,
            part: {
              ...base,
              state: "output-available",
              output: `result ${callId}`,
            },
            role: step.resultRole,
            batch: step.batchResults,
          });
        }
        return { ...base, state: "input-available", input: { q: callId } };
      });
      push("assistant", parts);
    }
    flushDue();
  }
  return messages;
}

/** Call ids with messages both inside and outside the index range [from, to]. */
export function splitGroups(
  messages: SessionMessage[],
  from: number,
  to: number,
): string[] {
  const split: string[] = [];
  for (const [callId, indices] of toolCallGroups(messages)) {
    const inside = indices.filter(
      (index) => index >= from && index <= to,
    ).length;
    if (inside > 0 && inside < indices.length) split.push(callId);
  }
  return split;
}

/** Transcripts of 4 to 40 steps (more messages, as results arrive separately). */
export const transcriptArbitrary = fc
  .array(stepArbitrary, { minLength: 4, maxLength: 40, size: "+1" })
  .map(materialize);
