// What model-config.ts and embedding-config.ts share: loading the optional provider package,
// checking the endpoint URL, and the process environment where there is one.
import { ArborError, ArborTypeError } from "../session/index.js";

/**
 * `@ai-sdk/openai-compatible`, or `MISSING_DEPENDENCY` naming what needed it.
 *
 * @internal Its type names the optional package, which published declarations must not import.
 */
export async function loadOpenAICompatible(
  purpose: "models" | "embeddings",
): Promise<typeof import("@ai-sdk/openai-compatible")> {
  try {
    return await import("@ai-sdk/openai-compatible");
  } catch (error) {
    throw new ArborError(
      "MISSING_DEPENDENCY",
      `[arbor] [agent] OpenAI-compatible ${purpose} need the optional package @ai-sdk/openai-compatible: npm install @ai-sdk/openai-compatible`,
      { cause: error },
    );
  }
}

/** `INVALID_ARGUMENT` unless `baseURL` is an http(s) URL; `variable` names where it came from. */
export function assertBaseUrl(baseURL: string, variable: string): void {
  let url: URL | undefined;
  try {
    url = new URL(baseURL);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new ArborTypeError(
      "INVALID_ARGUMENT",
      `[arbor] [agent] ${variable} must be an http(s) URL such as http://localhost:11434/v1, got "${baseURL}"`,
    );
  }
}

/** The process environment, or an empty one where there is no `process` (workerd). */
export function processEnv(): Record<string, string | undefined> {
  return (
    (globalThis as { process?: { env?: Record<string, string | undefined> } })
      .process?.env ?? {}
  );
}
