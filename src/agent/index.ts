/**
 * Running agent turns on top of a Session with the AI SDK (`ai`), an LLM
 * summarizer for compaction, and OpenAI-compatible model configuration from the environment.
 * Needs the optional peer `ai` (loaded when this entry is imported: without it the import throws
 * `MISSING_DEPENDENCY`); `modelFromEnv` also needs `@ai-sdk/openai-compatible` (loaded only when
 * called). The declarations describe AI SDK values structurally (`AgentLanguageModel`, …), so
 * they compile without `ai`'s types.
 *
 * @example
 * ```ts
 * import { modelFromEnv, SessionAgent, summarizeWith } from "arbor-memory/agent";
 * import { Session } from "arbor-memory/session";
 * import { openSqlite } from "arbor-memory/sqlite";
 * import { createCompactFunction } from "arbor-memory/utils";
 *
 * const { model, summaryModel } = (await modelFromEnv())!;
 * const session = Session.create(openSqlite("arbor.db"))
 *   .withContext("memory", { description: "Facts about the user", maxTokens: 1000 })
 *   .onCompaction(createCompactFunction({ summarize: summarizeWith(summaryModel) }))
 *   .compactAfter(100_000);
 * const agent = new SessionAgent({ session, model });
 * console.log((await agent.run("Remember that I take my tea green.")).text);
 * ```
 *
 * @module arbor-memory/agent
 */
export { SessionAgent, runTurn } from "./agent.js";
export {
  INTERRUPTED_TOOL_ERROR,
  settleInterruptedMessage,
} from "./settle-message.js";
export {
  MODEL_ENV,
  modelFromEnv,
  openAICompatibleModels,
  readModelEnv,
  type ConfiguredModels,
  type Env,
  type ModelSettings,
} from "./model-config.js";
export {
  embeddingModelFromEnv,
  openAICompatibleEmbeddingModel,
  type EmbeddingModelSettings,
} from "./embedding-config.js";
export type {
  AgentOptions,
  AgentSessionTarget,
  AssistantMetadata,
  ModelPricing,
  TurnOptions,
  TurnResult,
  TurnUsage,
  UserInput,
} from "./types.js";
export type {
  AgentFinishReason,
  AgentLanguageModel,
  AgentLanguageModelObject,
  AgentModelMessage,
  AgentModelUsage,
  AgentStepResult,
  AgentTool,
  AgentToolSet,
  AgentUIMessageChunk,
} from "./ai-types.js";
export { summarizeWith, type SummarizeWithOptions } from "./summarize-with.js";
export {
  assembleContext,
  composeHistoryFilters,
  keepLastMessages,
  keepWithinTokenBudget,
  NO_MESSAGES_ERROR,
  type AssembleContextOptions,
  type AssembledContext,
  type ContextSource,
  type HistoryFilter,
  type HistoryFilterOptions,
} from "../utils/index.js";
