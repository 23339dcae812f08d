/**
 * The AI SDK values `arbor-memory/agent` takes and returns, as small structural types of our own.
 * The published declarations must compile without `ai` installed (strict, `skipLibCheck: false`),
 * so they never import its types; the real AI SDK values satisfy these (the same idea as kysely's
 * dialect configs, which describe a driver instead of importing it). Cast to the AI SDK's own
 * types (`as UIMessageChunk`, `as LanguageModel`) where you need their full detail.
 */

/**
 * Any AI SDK language model: a provider's model object (`openai("gpt-4.1")`, `modelFromEnv()`,
 * `MockLanguageModelV3`), or a model id string for the AI SDK's global provider.
 */
export type AgentLanguageModel = string | AgentLanguageModelObject;

/** What every AI SDK model object (specification v2, v3, …) carries. */
export interface AgentLanguageModelObject {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
}

/** An AI SDK tool (`tool({ description, inputSchema, execute })`, a provider-defined tool). */
export interface AgentTool {
  description?: string | undefined;
  inputSchema?: unknown;
  execute?: ((...args: never[]) => unknown) | undefined;
}

/** Tools by name, as the AI SDK's `ToolSet`. */
export type AgentToolSet = Record<string, AgentTool>;

/** Why a model step ended (the AI SDK's `FinishReason`). */
export type AgentFinishReason =
  | "stop"
  | "length"
  | "content-filter"
  | "tool-calls"
  | "error"
  | "other"
  | "unknown";

/** Token counts of one model step as the provider reports them (the AI SDK's `LanguageModelUsage`). */
export interface AgentModelUsage {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  totalTokens: number | undefined;
}

/** One finished model step (the AI SDK's `StepResult`; cast to it for the typed tool calls). */
export interface AgentStepResult {
  readonly text: string;
  readonly finishReason: AgentFinishReason;
  readonly usage: AgentModelUsage;
  readonly toolCalls: readonly unknown[];
  readonly toolResults: readonly unknown[];
}

/**
 * One AI SDK UI message chunk (`start`, `text-delta`, `tool-input-available`, `finish`, …). At
 * run time it is the SDK's `UIMessageChunk`; cast to it to forward chunks to a `useChat` stream.
 */
export interface AgentUIMessageChunk {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** A message as sent to the model (the AI SDK's `ModelMessage`). */
export interface AgentModelMessage {
  readonly role: string;
  readonly content: unknown;
}
