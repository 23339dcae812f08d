import type { EmbeddingModelLike } from "../session/index.js";
import { ArborTypeError } from "../session/index.js";
import {
  assertBaseUrl,
  loadOpenAICompatible,
  processEnv,
} from "./_openai-compatible.js";
import { MODEL_ENV, type Env, type ModelSettings } from "./model-config.js";

/** An OpenAI-compatible endpoint and the embedding model to use on it. */
export type EmbeddingModelSettings = Pick<
  ModelSettings,
  "baseURL" | "apiKey" | "name" | "headers" | "fetch"
> & { model: string };

/**
 * An embedding model of any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama,
 * llama.cpp's server, vLLM, …) through `@ai-sdk/openai-compatible`, for `withEmbeddings()`.
 *
 * @example
 * ```ts
 * const embedder = await openAICompatibleEmbeddingModel({
 *   baseURL: "http://localhost:11434/v1",
 *   model: "nomic-embed-text",
 * });
 * manager.withEmbeddings(embedder, { model: "nomic-embed-text" });
 * ```
 */
export async function openAICompatibleEmbeddingModel(
  settings: EmbeddingModelSettings,
): Promise<EmbeddingModelLike> {
  assertBaseUrl(settings.baseURL, MODEL_ENV.baseURL);
  const { createOpenAICompatible } = await loadOpenAICompatible("embeddings");
  const provider = createOpenAICompatible({
    name: settings.name ?? "openai-compatible",
    baseURL: settings.baseURL,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    ...(settings.headers ? { headers: settings.headers } : {}),
    ...(settings.fetch ? { fetch: settings.fetch } : {}),
  });
  return provider.embeddingModel(settings.model);
}

/**
 * The embedding model configured by the environment: `ARBOR_EMBEDDING_MODEL` on the endpoint
 * of `ARBOR_BASE_URL` (with `ARBOR_API_KEY`), or `null` when `ARBOR_EMBEDDING_MODEL` is unset.
 *
 * @throws ArborTypeError `INVALID_ARGUMENT` when `ARBOR_EMBEDDING_MODEL` is set without `ARBOR_BASE_URL`.
 */
export async function embeddingModelFromEnv(
  env: Env = processEnv(),
  overrides: Pick<ModelSettings, "fetch" | "headers" | "name"> = {},
): Promise<EmbeddingModelLike | null> {
  const model = env[MODEL_ENV.embeddingModel]?.trim();
  if (!model) return null;
  const baseURL = env[MODEL_ENV.baseURL]?.trim();
  if (!baseURL) {
    throw new ArborTypeError(
      "INVALID_ARGUMENT",
      `[arbor] [agent] Set ${MODEL_ENV.baseURL} too: ${MODEL_ENV.embeddingModel} names a model on that endpoint`,
    );
  }
  const apiKey = env[MODEL_ENV.apiKey]?.trim();
  return openAICompatibleEmbeddingModel({
    baseURL,
    model,
    ...(apiKey ? { apiKey } : {}),
    ...overrides,
  });
}

// --- Internal helpers ---
