import type {
  LanguageModel,
  StepResult,
  ToolSet,
  UIMessage,
  UIMessageChunk,
} from "ai";
import type { Session, SessionMessage } from "../session/index.js";
import { messageOf } from "../session/facade/status.js";
import { assembleContext } from "../utils/assemble-context.js";
import { afterTurn } from "./after-turn.js";
import { settleInterruptedMessage } from "./settle-message.js";
import type {
  AgentOptions,
  AssistantMetadata,
  TurnOptions,
  TurnPlan,
  TurnResult,
} from "./types.js";
import { sumUsage } from "./usage.js";
import { ai } from "./_ai.js";

const { convertToModelMessages, readUIMessageStream, stepCountIs, streamText } =
  ai;

export const DEFAULT_MAX_STEPS = 10;

/**
 * Streams one turn and persists the answer as an AI SDK `UIMessage` built by the SDK itself
 * (`toUIMessageStream` + `readUIMessageStream`): appended under the user message when the first
 * step finishes, updated after every later step (docs/behavior/agent-turns.md) and once more at the end. An
 * interrupted answer is settled first (see `settleInterruptedMessage`). Then usage is recorded,
 * the system prompt refreshed (docs/behavior/agent-turns.md step 6) and the context handed to the audit sink.
 * A model or stream error is rethrown after the partial answer is stored.
 */
export async function streamTurn(plan: TurnPlan): Promise<TurnResult> {
  const { session, userMessage, options, turn } = plan;
  const { system, messages } = await assembleContext(session, {
    leafId: userMessage.id,
    ...(options.fallbackSystemPrompt !== undefined
      ? { fallbackSystemPrompt: options.fallbackSystemPrompt }
      : {}),
    ...(options.truncate !== undefined ? { truncate: options.truncate } : {}),
    ...(options.filters ? { filters: options.filters } : {}),
  });
  const tools: ToolSet = {
    ...((await session.tools()) as ToolSet),
    ...(plan.extraTools as ToolSet),
    ...(options.tools as ToolSet | undefined),
  };
  const modelMessages = await convertToModelMessages(messages as UIMessage[], {
    tools,
    ignoreIncompleteToolCalls: true,
  });

  const generateId = options.generateId ?? (() => crypto.randomUUID());
  const assistantId = generateId();
  const base = {
    createdAt: new Date().toISOString(),
    model: modelIdOf(options.model),
  };
  const steps: StepResult<ToolSet>[] = [];
  let failure: { error: unknown } | undefined;
  let aborted = false;

  const result = streamText({
    model: options.model as LanguageModel,
    ...(system !== "" ? { system } : {}),
    messages: modelMessages,
    tools,
    stopWhen: stepCountIs(options.maxSteps ?? DEFAULT_MAX_STEPS),
    ...(turn.abortSignal ? { abortSignal: turn.abortSignal } : {}),
    ...(options.temperature !== undefined
      ? { temperature: options.temperature }
      : {}),
    ...(options.maxOutputTokens !== undefined
      ? { maxOutputTokens: options.maxOutputTokens }
      : {}),
    ...(options.providerOptions
      ? {
          providerOptions: options.providerOptions as NonNullable<
            Parameters<typeof streamText>[0]["providerOptions"]
          >,
        }
      : {}),
    onStepFinish: (step) => {
      steps.push(step);
    },
    onError: ({ error }) => {
      failure ??= { error };
    },
  });

  let finishedSteps = 0;
  const stream = result
    .toUIMessageStream({
      generateMessageId: () => assistantId,
      // Metadata on `finish-step` makes the SDK emit a message snapshot at each step's end,
      // which is when the answer is persisted.
      messageMetadata: ({ part }) => {
        if (part.type === "start") return base;
        if (part.type === "finish-step") return { steps: ++finishedSteps };
        if (part.type === "finish") return { finishReason: part.finishReason };
        return undefined;
      },
      // Tool errors are stored with their real message (the model saw it during the turn).
      onError: messageOf,
    })
    // The signal also ends the pipe, so a provider that ignores it cannot hold the turn open.
    .pipeThrough(
      chunkTap(turn, () => (aborted = true)),
      {
        ...(turn.abortSignal ? { signal: turn.abortSignal } : {}),
      },
    );

  const store = answerStore(session, userMessage.id);
  let latest: UIMessage | undefined;
  let persistedSteps = 0;
  for await (const snapshot of readUIMessageStream({
    stream,
    onError: (error) => {
      failure ??= { error };
    },
  })) {
    latest = snapshot;
    const stepsSoFar =
      (snapshot.metadata as { steps?: number } | undefined)?.steps ?? 0;
    if (stepsSoFar > persistedSteps) {
      persistedSteps = stepsSoFar;
      await store.save({
        ...(snapshot as SessionMessage),
        metadata: { ...base, steps: stepsSoFar } satisfies AssistantMetadata,
      });
    }
  }

  aborted ||= turn.abortSignal?.aborted === true;
  if (aborted) failure = undefined;
  const usage = sumUsage(steps, options.pricing);
  const metadata: AssistantMetadata = {
    ...base,
    steps: steps.length,
    ...(steps.at(-1) ? { finishReason: steps.at(-1)!.finishReason } : {}),
    usage: {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      totalTokens: usage.totalTokens,
    },
    ...(aborted ? { aborted: true as const } : {}),
    ...(failure ? { error: messageOf(failure.error) } : {}),
  };
  const settled = latest
    ? settleInterruptedMessage(latest as SessionMessage)
    : null;
  const answer = settled ? { ...settled, id: assistantId, metadata } : null;
  if (answer) await store.save(answer);
  // Read back: the session may have shrunk it to the row-size limit (docs/behavior/overlays.md).
  const stored = answer
    ? ((await session.getMessage(assistantId)) ?? answer)
    : null;

  await afterTurn(plan, usage, failure !== undefined, {
    system,
    messages: modelMessages,
    tools: Object.keys(tools),
    response: stored,
  });
  if (failure) throw failure.error;
  return {
    status: aborted ? "aborted" : "completed",
    userMessage,
    assistantMessage: stored,
    text: textOf(answer),
    usage,
    steps,
    finishReason: steps.at(-1)?.finishReason,
  };
}

// --- Internal helpers ---

/** Appends the answer under its user message the first time, then updates it. */
function answerStore(session: Session, parentId: string) {
  let stored = false;
  return {
    async save(message: SessionMessage): Promise<void> {
      if (stored) return session.updateMessage(message);
      await session.appendMessage(message, parentId);
      stored = true;
    },
  };
}

/** Hands each chunk to `onChunk` (a failing consumer is logged once) and notes an abort. */
function chunkTap(
  turn: Pick<TurnOptions, "onChunk">,
  onAbort: () => void,
): TransformStream<UIMessageChunk, UIMessageChunk> {
  let warned = false;
  return new TransformStream({
    async transform(chunk, controller) {
      if (chunk.type === "abort") onAbort();
      if (turn.onChunk) {
        try {
          await turn.onChunk(chunk);
        } catch (error) {
          if (!warned) {
            warned = true;
            console.warn(
              `[arbor] [agent] onChunk failed; the turn goes on: ${messageOf(error)}`,
            );
          }
        }
      }
      controller.enqueue(chunk);
    },
  });
}

function textOf(message: SessionMessage | null): string {
  if (!message) return "";
  return message.parts
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join("\n\n");
}

function modelIdOf(model: AgentOptions["model"]): string {
  return typeof model === "string" ? model : model.modelId;
}
