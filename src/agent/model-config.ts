import type { AgentLanguageModel as LanguageModel } from "./ai-types.js";
import { ArborTypeError } from "../session/index.js";
import {
  assertBaseUrl,
  loadOpenAICompatible,
  processEnv,
} from "./_openai-compatible.js";

/** The environment variables `modelFromEnv` reads. */
export const MODEL_ENV = {
  /** The endpoint, ending in `/v1` (e.g. `http://localhost:11434/v1` for Ollama). */
  baseURL: "ARBOR_BASE_URL",
  /** The model id the endpoint knows (e.g. `llama3.2`). */
  model: "ARBOR_MODEL",
  /** Sent as `Authorization: Bearer …`; local servers usually need none. */
  apiKey: "ARBOR_API_KEY",
  /** A cheaper model on the same endpoint for compaction summaries; default `ARBOR_MODEL`. */
  summaryModel: "ARBOR_SUMMARY_MODEL",
  /** An embedding model on the same endpoint, for semantic recall (docs/search.md). */
  embeddingModel: "ARBOR_EMBEDDING_MODEL",
} as const;

/** An OpenAI-compatible endpoint and the models to use on it. */
export interface ModelSettings {
  baseURL: string;
  model: string;
  apiKey?: string;
  /** Default: `model`. */
  summaryModel?: string;
  /** Provider name, the key of `providerOptions`. Default `"openai-compatible"`. */
  name?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** A custom fetch (proxies, tests). */
  fetch?: typeof globalThis.fetch;
}

/** The chat model and the summary model, ready for `SessionAgent` and `summarizeWith`. */
export interface ConfiguredModels {
  model: LanguageModel;
  summaryModel: LanguageModel;
  settings: ModelSettings & { summaryModel: string };
}

/** Environment variables by name, as `process.env` holds them. */
export type Env = Record<string, string | undefined>;

/**
 * Reads the model settings from the environment without loading any provider: `null` when
 * neither `ARBOR_BASE_URL` nor `ARBOR_MODEL` is set.
 *
 * @throws ArborTypeError `INVALID_ARGUMENT` when only one of the two is set, or the URL is invalid.
 */
export function readModelEnv(env: Env = processEnv()): ModelSettings | null {
  const baseURL = value(env[MODEL_ENV.baseURL]);
  const model = value(env[MODEL_ENV.model]);
  if (baseURL === undefined && model === undefined) return null;
  if (baseURL === undefined || model === undefined) {
    const missing = baseURL === undefined ? MODEL_ENV.baseURL : MODEL_ENV.model;
    throw new ArborTypeError(
      "INVALID_ARGUMENT",
      `[arbor] [agent] Set ${missing} too: a model needs ${MODEL_ENV.baseURL} and ${MODEL_ENV.model}`,
    );
  }
  assertBaseUrl(baseURL, MODEL_ENV.baseURL);
  const apiKey = value(env[MODEL_ENV.apiKey]);
  const summaryModel = value(env[MODEL_ENV.summaryModel]);
  return {
    baseURL,
    model,
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(summaryModel !== undefined ? { summaryModel } : {}),
  };
}

/**
 * The chat and summary models of any OpenAI-compatible endpoint (OpenAI, Ollama, llama.cpp's
 * server, vLLM, LM Studio, OpenRouter, …) through the AI SDK's `@ai-sdk/openai-compatible`
 * provider, an optional peer dependency loaded only here. Streaming responses report usage.
 *
 * @example
 * ```ts
 * const { model, summaryModel } = await openAICompatibleModels({
 *   baseURL: "http://localhost:11434/v1",
 *   model: "llama3.2",
 * });
 * ```
 */
export async function openAICompatibleModels(
  settings: ModelSettings,
): Promise<ConfiguredModels> {
  assertBaseUrl(settings.baseURL, MODEL_ENV.baseURL);
  const { createOpenAICompatible } = await loadOpenAICompatible("models");
  const provider = createOpenAICompatible({
    name: settings.name ?? "openai-compatible",
    baseURL: settings.baseURL,
    includeUsage: true,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    ...(settings.headers ? { headers: settings.headers } : {}),
    ...(settings.fetch ? { fetch: settings.fetch } : {}),
  });
  const summaryModel = settings.summaryModel ?? settings.model;
  return {
    model: provider.chatModel(settings.model),
    summaryModel: provider.chatModel(summaryModel),
    settings: { ...settings, summaryModel },
  };
}

/**
 * The models configured by the environment (`ARBOR_BASE_URL`, `ARBOR_MODEL`, `ARBOR_API_KEY`,
 * `ARBOR_SUMMARY_MODEL`), or `null` when none is configured. Used by the CLI and the server.
 *
 * @example
 * ```ts
 * import { modelFromEnv, SessionAgent, summarizeWith } from "arbor-memory/agent";
 *
 * const models = await modelFromEnv();
 * if (!models) throw new Error("Set ARBOR_BASE_URL and ARBOR_MODEL");
 * session.onCompaction(createCompactFunction({ summarize: summarizeWith(models.summaryModel) }));
 * const agent = new SessionAgent({ session, model: models.model });
 * ```
 */
export async function modelFromEnv(
  env: Env = processEnv(),
  overrides: Pick<ModelSettings, "fetch" | "headers" | "name"> = {},
): Promise<ConfiguredModels | null> {
  const settings = readModelEnv(env);
  return settings
    ? openAICompatibleModels({ ...settings, ...overrides })
    : null;
}

// --- Internal helpers ---

function value(raw: string | undefined): string | undefined {
  const trimmed = raw?.trim();
  return trimmed ? trimmed : undefined;
}
