// A scripted fake model for the chat route tests: the real AI SDK `MockLanguageModelV3` from
// `ai/test`, playing steps the tests write, each of which may hold its stream open until the
// test releases it (a slow answer to stop, resume or disconnect from). It is not a language model.
import { MockLanguageModelV3 } from "ai/test";
import { MockLanguageModelV2 } from "ai5/test";

export type ModelCall = Parameters<MockLanguageModelV3["doStream"]>[0];

type Part =
  | { type: "text"; text: string }
  | { type: "tool"; toolCallId: string; toolName: string; input: unknown };

export interface Step {
  parts: Part[];
  /** Hold the stream open after `parts` until `release()` is called (a slow answer). */
  hold?: boolean;
  /** Text added to the last text part on release. */
  after?: string;
}

export interface ScriptedChatModel {
  /** `MockLanguageModelV3` (ai 6), or `MockLanguageModelV2` (ai 5). */
  model: MockLanguageModelV3 | MockLanguageModelV2;
  calls: ModelCall[];
  /** Lets the held step go on. */
  release(): void;
  /** Resolves when the model has been called `n` times and has streamed its first parts. */
  started(n: number): Promise<void>;
}

/** The specification the model speaks: v3 for ai 6, v2 for ai 5. */
export type ModelSpec = "v3" | "v2";

export function scriptedChatModel(
  steps: Step[],
  spec: ModelSpec = "v3",
): ScriptedChatModel {
  const calls: ModelCall[] = [];
  let release: () => void = () => undefined;
  const startWaiters: Array<{ n: number; resolve: () => void }> = [];
  let streamed = 0;
  const wake = () => {
    for (const waiter of startWaiters.splice(0))
      if (streamed >= waiter.n) waiter.resolve();
      else startWaiters.push(waiter);
  };
  const doStream = async (call: ModelCall) => {
    calls.push(call);
    const step = steps[calls.length - 1];
    if (!step) throw new Error(`scripted model: no step ${calls.length}`);
    const gate = new Promise<void>((resolve) => (release = resolve));
    const stream = new ReadableStream({
      async start(controller) {
        const signal = call.abortSignal;
        signal?.addEventListener("abort", () => {
          try {
            controller.error(signal.reason);
          } catch {
            // already closed
          }
        });
        controller.enqueue({ type: "stream-start", warnings: [] });
        let toolCalls = false;
        for (const [index, part] of step.parts.entries()) {
          if (part.type === "text") {
            const id = `t${index}`;
            controller.enqueue({ type: "text-start", id });
            controller.enqueue({ type: "text-delta", id, delta: part.text });
            const open =
              step.after !== undefined && index === step.parts.length - 1;
            if (!open) controller.enqueue({ type: "text-end", id });
          } else {
            toolCalls = true;
            const input = JSON.stringify(part.input);
            controller.enqueue({
              type: "tool-input-start",
              id: part.toolCallId,
              toolName: part.toolName,
            });
            controller.enqueue({
              type: "tool-input-delta",
              id: part.toolCallId,
              delta: input,
            });
            controller.enqueue({
              type: "tool-input-end",
              id: part.toolCallId,
            });
            controller.enqueue({
              type: "tool-call",
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              input,
            });
          }
        }
        streamed++;
        wake();
        if (step.hold) {
          await gate;
          if (signal?.aborted) return;
        }
        if (step.after !== undefined) {
          const id = `t${step.parts.length - 1}`;
          controller.enqueue({ type: "text-delta", id, delta: step.after });
          controller.enqueue({ type: "text-end", id });
        }
        controller.enqueue(
          spec === "v2"
            ? {
                type: "finish",
                finishReason: toolCalls ? "tool-calls" : "stop",
                usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
              }
            : {
                type: "finish",
                finishReason: {
                  unified: toolCalls ? "tool-calls" : "stop",
                  raw: toolCalls ? "tool_calls" : "stop",
                },
                usage: {
                  inputTokens: {
                    total: 10,
                    noCache: 10,
                    cacheRead: undefined,
                    cacheWrite: undefined,
                  },
                  outputTokens: { total: 5, text: 5, reasoning: undefined },
                },
              },
        );
        controller.close();
      },
    });
    return { stream };
  };
  const model =
    spec === "v2"
      ? new MockLanguageModelV2({ doStream: doStream as never })
      : new MockLanguageModelV3({ doStream: doStream as never });
  return {
    model,
    calls,
    release: () => release(),
    started: (n) =>
      new Promise<void>((resolve) => {
        startWaiters.push({ n, resolve });
        wake();
      }),
  };
}

/** The prompt as text, for assertions on what the model was sent. */
export function promptOf(call: ModelCall): string {
  return JSON.stringify(call.prompt);
}
