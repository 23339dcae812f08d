import { ArborError } from "../session/index.js";

/** The parts of the AI SDK (`ai` 5, 6 or 7) the route helper uses. @internal */
export type AiSdk = Awaited<ReturnType<typeof importAi>>;

let loaded: Promise<AiSdk> | undefined;

/**
 * The AI SDK, loaded with the first request: it is an optional peer, so `arbor-memory/ai-sdk`
 * imports without it and only answering a chat needs it. A Worker bundler inlines the import.
 *
 * @throws ArborError `MISSING_DEPENDENCY` with the install command when it cannot be loaded.
 * @internal The SDK's types stay out of the published declarations.
 */
export function loadAi(module?: object): Promise<AiSdk> {
  if (module) return Promise.resolve(pick(module as typeof import("ai")));
  loaded ??= importAi().catch((error: unknown) => {
    loaded = undefined;
    throw new ArborError(
      "MISSING_DEPENDENCY",
      "[arbor] [ai-sdk] arbor-memory/ai-sdk needs the optional peer dependency ai (the AI SDK): npm install ai",
      { cause: error },
    );
  });
  return loaded;
}

// --- Internal helpers ---

async function importAi() {
  return pick(await import("ai"));
}

function pick(ai: typeof import("ai")) {
  return {
    convertToModelMessages: ai.convertToModelMessages,
    createUIMessageStreamResponse: ai.createUIMessageStreamResponse,
    jsonSchema: ai.jsonSchema,
    readUIMessageStream: ai.readUIMessageStream,
    validateUIMessages: ai.validateUIMessages,
  };
}
