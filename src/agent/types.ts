import type {
  AgentFinishReason as FinishReason,
  AgentLanguageModel as LanguageModel,
  AgentStepResult,
  AgentToolSet as ToolSet,
  AgentUIMessageChunk as UIMessageChunk,
} from "./ai-types.js";
import type {
  Session,
  SessionManager,
  SessionMessage,
  SessionMessagePart,
} from "../session/index.js";
import type { HistoryFilter, TruncateOptions } from "../utils/index.js";

/** Prices in any currency per million tokens; the cost goes to `SessionManager.addUsage`. */
export interface ModelPricing {
  inputPerMillionTokens: number;
  outputPerMillionTokens: number;
}

/** Where the agent keeps its conversation: one Session, or a session of a SessionManager. */
export type AgentSessionTarget =
  | { session: Session; manager?: undefined; sessionId?: undefined }
  | { manager: SessionManager; sessionId: string; session?: undefined };

/** Everything a turn needs besides its input; fixed for the life of a `SessionAgent`. */
export type AgentOptions = AgentSessionTarget & {
  /** Any AI SDK language model (`openai("gpt-4.1")`, `modelFromEnv()`, a scripted fake in tests). */
  model: LanguageModel;
  /** Your tools; a name that clashes with a session tool wins over it. */
  tools?: ToolSet;
  /** Most model calls in one turn (tool round trips + the answer). Default 10. */
  maxSteps?: number;
  /** The system prompt when the session's frozen prompt is empty. */
  fallbackSystemPrompt?: string;
  /** Read-time truncation of older messages (docs/behavior/overlays.md); `false` sends them whole. */
  truncate?: TruncateOptions | false;
  /** History filters (docs/behavior/agent-turns.md): shape what is sent, never what is stored. */
  filters?: readonly HistoryFilter[];
  /** Managed sessions only: offer the manager's `session_search` tool. Default true. */
  sessionSearch?: boolean;
  /** Turns usage into a cost for `addUsage`: prices, or a function. Default: cost 0. */
  pricing?: ModelPricing | ((usage: TurnUsage) => number);
  /** Ids of new messages. Default `crypto.randomUUID()`. */
  generateId?: () => string;
  /** Passed to `streamText`. */
  temperature?: number;
  /** Passed to `streamText`. */
  maxOutputTokens?: number;
  /** Passed to `streamText` (provider-specific settings). */
  providerOptions?: Record<string, Record<string, unknown>>;
};

/** Per-turn options. */
export interface TurnOptions {
  /** Stops the turn; the transcript keeps what was produced (see docs/agent.md, "Aborts"). */
  abortSignal?: AbortSignal;
  /**
   * Every AI SDK UI message chunk of the answer, as it streams (forward it to a `useChat` client).
   * Declared as a method so a callback typed with the SDK's own `UIMessageChunk` is accepted.
   */
  onChunk?(chunk: UIMessageChunk): void | Promise<void>;
}

/**
 * One turn after its user message is stored: what `SessionAgent` runs for run, regenerate and
 * edit. Internal (not exported from the entry); it lives here, below `stream-turn.ts` and
 * `after-turn.ts`, so neither has to import the other for it.
 */
export interface TurnPlan {
  session: Session;
  /** The stored user message; the answer is appended under it. */
  userMessage: SessionMessage;
  options: AgentOptions;
  turn: TurnOptions;
  /** Tools besides the session's and the user's (the manager's `session_search`). */
  extraTools: ToolSet;
  /** Records the usage of a managed session. */
  recordUsage?: (usage: TurnUsage) => Promise<void>;
}

/** A user message for a turn: text, or parts with an optional id and metadata. */
export type UserInput =
  | string
  | {
      id?: string;
      role?: "user";
      parts: SessionMessagePart[];
      metadata?: unknown;
      [extra: string]: unknown;
    };

/** Token counts of one turn, summed over its finished steps. */
export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** From `pricing`; 0 without it. */
  cost: number;
}

/** What a turn produced. Both messages are already stored. */
export interface TurnResult {
  /** `aborted` when the abort signal stopped the turn (the answer is partial or absent). */
  status: "completed" | "aborted";
  userMessage: SessionMessage;
  /** The stored answer, or `null` when the turn was aborted before producing anything. */
  assistantMessage: SessionMessage | null;
  /** The answer's text parts, joined by blank lines. */
  text: string;
  usage: TurnUsage;
  /** The finished model steps, as the AI SDK reports them. */
  steps: AgentStepResult[];
  /** Why the last finished step ended (`stop`, `tool-calls`, `length`, …). */
  finishReason: FinishReason | undefined;
}

/** `metadata` of a stored answer. */
export interface AssistantMetadata {
  /** ISO-8601 time the turn started. */
  createdAt: string;
  /** The model id. */
  model: string;
  /** Finished steps. */
  steps: number;
  finishReason?: FinishReason;
  usage?: Omit<TurnUsage, "cost">;
  /** Present when the turn was aborted. */
  aborted?: true;
  /** The error message, when the turn failed after producing something. */
  error?: string;
}
