import type { ContextBlock } from "../contracts/types.js";

export type { ContextBlock };

import type {
  AnyContextProvider,
  WritableContextProvider,
} from "../contracts/context-provider.js";

/** A block of the system prompt (docs/behavior/context-blocks.md). */
export interface ContextConfig {
  label: string;
  description?: string;
  /** Token budget for plain writes; shown as usage in the prompt header. */
  maxTokens?: number;
  provider?: AnyContextProvider;
}

/** `withContext(label, options)` takes everything but the label. */
export type SessionContextOptions = Omit<ContextConfig, "label">;

/** Where the frozen system prompt persists (`withCachedPrompt`). */
export type PromptStore = WritableContextProvider;
