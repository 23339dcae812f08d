// A scripted fake model for the agent tests: the real AI SDK `MockLanguageModelV3` from `ai/test`,
// streaming chunks that each test writes by hand. It is not a language model.
import { simulateReadableStream } from "ai";
import { MockLanguageModelV3 } from "ai/test";

/** What the model receives (system prompt, messages, tools, abort signal). */
export type ModelCall = Parameters<MockLanguageModelV3["doStream"]>[0];
/** One chunk of a model stream (LanguageModelV3 stream part). */
export type ScriptedChunk =
  Awaited<
    ReturnType<MockLanguageModelV3["doStream"]>
  >["stream"] extends ReadableStream<infer Part>
    ? Part
    : never;

/** One model call: the chunks between `stream-start` and `finish`, and how it ends. */
export interface ScriptedStep {
  chunks: ScriptedChunk[];
  finish?: "stop" | "tool-calls" | "length";
  usage?: { input: number; output: number };
  /** Leave the stream open after the chunks, as a slow model would; an abort errors it, as fetch does. */
  hang?: boolean;
  /** With `hang`: ignore the abort signal, as a careless provider might. */
  ignoreAbort?: boolean;
}

/** A scripted fake model: call `n` plays `steps[n]`, or `script(call, n)` when a function. */
export function scriptedModel(
  steps: ScriptedStep[] | ((call: ModelCall, index: number) => ScriptedStep),
  modelId = "scripted-fake-model",
): MockLanguageModelV3 {
  let index = 0;
  return new MockLanguageModelV3({
    modelId,
    doStream: async (call) => {
      const step =
        typeof steps === "function" ? steps(call, index) : steps[index];
      index++;
      if (!step) throw new Error(`scripted fake model: no step ${index}`);
      return { stream: streamOf(step, call.abortSignal) };
    },
  });
}

/** A step that writes text in two deltas. */
export function textStep(
  text: string,
  usage = { input: 10, output: 5 },
): ScriptedStep {
  const half = Math.ceil(text.length / 2);
  return {
    chunks: [
      { type: "text-start", id: "text-1" },
      { type: "text-delta", id: "text-1", delta: text.slice(0, half) },
      { type: "text-delta", id: "text-1", delta: text.slice(half) },
      { type: "text-end", id: "text-1" },
    ],
    usage,
  };
}

/** A step that streams one tool call's input, then makes the call. */
export function toolStep(
  toolCallId: string,
  toolName: string,
  input: unknown,
  usage = { input: 10, output: 5 },
): ScriptedStep {
  const json = JSON.stringify(input);
  return {
    chunks: [
      { type: "tool-input-start", id: toolCallId, toolName },
      { type: "tool-input-delta", id: toolCallId, delta: json },
      { type: "tool-input-end", id: toolCallId },
      { type: "tool-call", toolCallId, toolName, input: json },
    ],
    finish: "tool-calls",
    usage,
  };
}

/** The text of every message of a recorded prompt, for assertions. */
export function promptText(call: ModelCall): string {
  return JSON.stringify(call.prompt);
}

// --- Internal helpers ---

function streamOf(
  step: ScriptedStep,
  abortSignal: AbortSignal | undefined,
): ReadableStream<ScriptedChunk> {
  const usage = step.usage ?? { input: 10, output: 5 };
  const chunks: ScriptedChunk[] = [
    { type: "stream-start", warnings: [] },
    ...step.chunks,
  ];
  if (step.hang) {
    return new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        if (step.ignoreAbort) return;
        abortSignal?.addEventListener("abort", () =>
          controller.error(abortSignal.reason),
        );
      },
    });
  }
  const finish = step.finish ?? "stop";
  chunks.push({
    type: "finish",
    finishReason: {
      unified: finish,
      raw: finish === "tool-calls" ? "tool_calls" : finish,
    },
    usage: {
      inputTokens: {
        total: usage.input,
        noCache: usage.input,
        cacheRead: undefined,
        cacheWrite: undefined,
      },
      outputTokens: {
        total: usage.output,
        text: usage.output,
        reasoning: undefined,
      },
    },
  });
  return simulateReadableStream({ chunks });
}
