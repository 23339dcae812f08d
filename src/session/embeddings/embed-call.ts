/**
 * Calling an embedder and checking what it returns: loaded on first embedding (embedder.ts).
 * `dimensions` goes to an AI SDK model as a provider option under its provider's name (and
 * `openaiCompatible`, `openai`), which OpenAI-style endpoints read as the `dimensions` field.
 */
import type { Embedder, EmbeddingModelLike } from "./types.js";

/** One batch through the embedder, with its vectors checked (count, numbers, `dimensions`). */
export async function embedChecked(
  embedder: Embedder,
  texts: string[],
  dimensions: number | undefined,
): Promise<number[][]> {
  const vectors =
    typeof embedder === "function"
      ? await embedder(texts)
      : await callModel(embedder, texts, dimensions);
  checkVectors(vectors, texts.length, dimensions);
  return vectors;
}

// --- Internal helpers ---

async function callModel(
  model: EmbeddingModelLike,
  texts: string[],
  dimensions: number | undefined,
): Promise<number[][]> {
  const name = (model.provider ?? "").split(".")[0]!.trim();
  const options = dimensions === undefined ? undefined : { dimensions };
  const providerOptions = options
    ? {
        ...(name ? { [name]: options } : {}),
        openaiCompatible: options,
        openai: options,
      }
    : undefined;
  // A model's own per-call limit wins over `batchSize`.
  const stated = await model.maxEmbeddingsPerCall;
  const size = typeof stated === "number" && stated > 0 ? stated : texts.length;
  const out: number[][] = [];
  for (let at = 0; at < texts.length; at += size) {
    const result = await model.doEmbed({
      values: texts.slice(at, at + size),
      ...(providerOptions ? { providerOptions } : {}),
    });
    out.push(...result.embeddings);
  }
  return out;
}

function checkVectors(
  vectors: unknown,
  count: number,
  dimensions: number | undefined,
): asserts vectors is number[][] {
  if (!Array.isArray(vectors) || vectors.length !== count)
    throw new Error(
      `[arbor] The embedder returned ${Array.isArray(vectors) ? vectors.length : "no"} vectors for ${count} texts`,
    );
  for (const vector of vectors) {
    if (
      !Array.isArray(vector) ||
      vector.length === 0 ||
      !vector.every((v) => typeof v === "number" && Number.isFinite(v))
    )
      throw new Error(
        "[arbor] The embedder returned a vector that is not a list of finite numbers",
      );
    if (dimensions !== undefined && vector.length !== dimensions)
      throw new Error(
        `[arbor] The embedder returned ${vector.length} dimensions; withEmbeddings() was told ${dimensions}`,
      );
  }
}
