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

/** `session.readSystemPrompt()`: both prompts, read without freezing or persisting anything. */
export interface SystemPromptReading {
  /** What the blocks render now, re-read from their providers (what a refresh would freeze). */
  current: string;
  /** The frozen prompt the next turn sends, or `null` while none has been frozen. */
  frozen: string | null;
}
