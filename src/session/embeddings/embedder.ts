import { invalidArgument } from "../errors/index.js";
import type {
  EmbedFunction,
  Embedder,
  EmbeddingModelLike,
  EmbeddingOptions,
} from "./types.js";

/** The default texts per embedding call. */
export const DEFAULT_BATCH_SIZE = 64;
/** How long a claimed batch is reserved for its worker: far longer than a batch takes. */
export const DEFAULT_LEASE_MS = 60_000;

/** An embedder made callable, with its resolved name and batch size. */
export interface ResolvedEmbedder {
  embed: EmbedFunction;
  model: string;
  batchSize: number;
  dimensions: number | undefined;
  /** How long a claimed batch stays reserved for this worker (embedding-index.ts). */
  leaseMs: number;
}

/**
 * Checks `withEmbeddings()` arguments and turns a model into a function (embed-call.ts): an AI
 * SDK model is called through its `doEmbed` (no `ai` import on Arbor's load path, so Workers
 * stay small), and every returned vector is checked.
 */
export function resolveEmbedder(
  embedder: Embedder,
  options: EmbeddingOptions = {},
): ResolvedEmbedder {
  const { dimensions, batchSize = DEFAULT_BATCH_SIZE } = options;
  if (dimensions !== undefined && !positiveInteger(dimensions))
    invalid("dimensions must be a positive integer");
  if (!positiveInteger(batchSize))
    invalid("batchSize must be a positive integer");
  const { leaseMs = DEFAULT_LEASE_MS } = options;
  if (!positiveInteger(leaseMs)) invalid("leaseMs must be a positive integer");
  if (
    options.model !== undefined &&
    (typeof options.model !== "string" || options.model === "")
  )
    invalid("model must be a non-empty string");
  if (typeof embedder !== "function" && !isEmbeddingModel(embedder))
    invalid(
      "withEmbeddings() takes an AI SDK EmbeddingModel or a function (texts: string[]) => Promise<number[][]>",
    );
  const model =
    options.model ??
    (typeof embedder === "function" ? "custom" : embedder.modelId);
  // The calling and checking code loads with the worker (embed-call.ts), on first use.
  const embed: EmbedFunction = async (texts) =>
    (await import("./embed-call.js")).embedChecked(embedder, texts, dimensions);
  return { embed, model, batchSize, dimensions, leaseMs };
}

// --- Internal helpers ---

function isEmbeddingModel(value: unknown): value is EmbeddingModelLike {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as EmbeddingModelLike).doEmbed === "function" &&
    typeof (value as EmbeddingModelLike).modelId === "string"
  );
}

function positiveInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value > 0;
}

function invalid(message: string): never {
  throw invalidArgument(message);
}
