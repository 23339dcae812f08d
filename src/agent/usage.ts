import type { AgentModelUsage as LanguageModelUsage } from "./ai-types.js";
import type { ModelPricing, TurnUsage } from "./types.js";

/** Sums the usage of finished steps; counts a provider does not report are 0. */
export function sumUsage(
  steps: ReadonlyArray<{ usage: LanguageModelUsage }>,
  pricing?: ModelPricing | ((usage: TurnUsage) => number),
): TurnUsage {
  let inputTokens = 0;
  let outputTokens = 0;
  let totalTokens = 0;
  for (const { usage } of steps) {
    const input = finite(usage.inputTokens);
    const output = finite(usage.outputTokens);
    inputTokens += input;
    outputTokens += output;
    totalTokens += finite(usage.totalTokens) || input + output;
  }
  const counts = { inputTokens, outputTokens, totalTokens, cost: 0 };
  return { ...counts, cost: costOf(counts, pricing) };
}

// --- Internal helpers ---

function costOf(
  usage: TurnUsage,
  pricing: ModelPricing | ((usage: TurnUsage) => number) | undefined,
): number {
  if (pricing === undefined) return 0;
  const cost =
    typeof pricing === "function"
      ? pricing(usage)
      : (usage.inputTokens * pricing.inputPerMillionTokens +
          usage.outputTokens * pricing.outputPerMillionTokens) /
        1_000_000;
  return Number.isFinite(cost) ? cost : 0;
}

function finite(value: number | undefined): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}
