import type { LanguageModel as AiLanguageModel } from "ai";
import { ai } from "./_ai.js";
import type { AgentLanguageModel as LanguageModel } from "./ai-types.js";

export interface SummarizeWithOptions {
  /** System instruction for the summarizer. */
  system?: string;
  /** Upper bound on the summary's length, passed to the model. */
  maxOutputTokens?: number;
  /** Sampling temperature; summaries are best kept deterministic. Default 0. */
  temperature?: number;
  /** Cancels the call. */
  abortSignal?: AbortSignal;
}

const DEFAULT_SYSTEM =
  "You summarize conversations for an AI agent's long-term memory. Keep facts, decisions, open tasks and names exactly; never invent details.";

/**
 * A `summarize(prompt)` for `createCompactFunction()` backed by any AI SDK language model, so a
 * cheaper model can write the summaries.
 *
 * @example
 * ```ts
 * import { summarizeWith } from "arbor-memory/agent";
 * import { createCompactFunction } from "arbor-memory/utils";
 *
 * session.onCompaction(createCompactFunction({ summarize: summarizeWith(cheapModel), label: "cheap-model" }));
 * ```
 */
export function summarizeWith(
  model: LanguageModel,
  options: SummarizeWithOptions = {},
): (prompt: string) => Promise<string> {
  return async (prompt) => {
    const result = await ai.generateText({
      model: model as AiLanguageModel,
      system: options.system ?? DEFAULT_SYSTEM,
      prompt,
      temperature: options.temperature ?? 0,
      ...(options.maxOutputTokens !== undefined
        ? { maxOutputTokens: options.maxOutputTokens }
        : {}),
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    });
    return result.text;
  };
}
