import type {
  SessionMessage,
  SessionMessagePart,
} from "../../session/contracts/types.js";

/** A user message with one text part. */
export function user(id: string, text = `question ${id}`): SessionMessage {
  return { id, role: "user", parts: [{ type: "text", text }] };
}

/** An assistant message with one text part. */
export function assistant(id: string, text = `answer ${id}`): SessionMessage {
  return { id, role: "assistant", parts: [{ type: "text", text }] };
}

/** An assistant message calling tools whose results arrive in later messages. */
export function toolCall(
  id: string,
  ...calls: { callId: string; tool?: string; input?: unknown }[]
): SessionMessage {
  return {
    id,
    role: "assistant",
    parts: calls.map(
      ({ callId, tool = "search", input = { query: callId } }) => ({
        type: `tool-${tool}`,
        toolCallId: callId,
        state: "input-available",
        input,
      }),
    ),
  };
}

/** A separate result message, in the reference's `tool` role shape. */
export function toolResult(
  id: string,
  ...results: { callId: string; tool?: string; output?: unknown }[]
): SessionMessage {
  return {
    id,
    role: "tool",
    parts: results.map(
      ({ callId, tool = "search", output = `result of ${callId}` }) => ({
        type: `tool-${tool}`,
        toolCallId: callId,
        state: "output-available",
        output,
      }),
    ),
  };
}

/** An AI SDK assistant message whose tool part holds both the call and its result. */
export function aiSdkToolTurn(
  id: string,
  callId: string,
  output: unknown = `result of ${callId}`,
  tool = "weather",
): SessionMessage {
  const part: SessionMessagePart = {
    type: `tool-${tool}`,
    toolCallId: callId,
    state: "output-available",
    input: { city: "Lisbon" },
    output,
  };
  return { id, role: "assistant", parts: [part] };
}

/** The synthetic message an overlay produces on read. */
export function summaryMessage(
  overlayId: string,
  text: string,
): SessionMessage {
  return {
    id: `compaction_${overlayId}`,
    role: "assistant",
    parts: [{ type: "text", text }],
  };
}

/** Alternating user/assistant text messages `m0 … m<count-1>`. */
export function chat(count: number, words = 5): SessionMessage[] {
  return Array.from({ length: count }, (_, index) => {
    const text = Array.from(
      { length: words },
      (__, w) => `w${index}_${w}`,
    ).join(" ");
    return index % 2 === 0
      ? user(`m${index}`, text)
      : assistant(`m${index}`, text);
  });
}

/**
 * A scripted summarizer for tests. It is a fake: it never calls a model, answers from a script
 * (or "summary <n>") and records every prompt it receives.
 */
export function fakeSummarizer(answers: string[] = []) {
  const prompts: string[] = [];
  const summarize = async (prompt: string): Promise<string> => {
    prompts.push(prompt);
    return answers[prompts.length - 1] ?? `summary ${prompts.length}`;
  };
  return { summarize, prompts };
}
